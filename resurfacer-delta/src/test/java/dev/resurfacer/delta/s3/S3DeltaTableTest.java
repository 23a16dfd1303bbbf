package dev.resurfacer.delta.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.CompactionPlan;
import dev.resurfacer.delta.compact.CompactionResult;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.describe.DeltaDescriber;
import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogCleanup;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.S3Storage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta tables in a real S3 API (s3proxy on loopback), addressed as {@code s3://bucket/path} through
 * a {@code type: delta} catalog with the Iceberg S3 keys. The tables are written by delta-spark
 * locally and uploaded; after our operations they are downloaded and Spark, the oracle, reads them.
 */
class S3DeltaTableTest {
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static S3Bucket s3;
  private static Path source;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Bucket("lake");
    source = TestTables.sharedPartitionedWithDeletes();
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  private static ResurfacerConfig config(String name, String location, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(s3.properties());
    props.putAll(extra);
    return new ResurfacerConfig(Map.of("deltas", new CatalogConfig("deltas", "delta", null, null, props, Set.of("s3.secret-access-key"),
        Map.of(name, location))), null);
  }

  /** s3proxy ignores If-None-Match on PUT, so commits need the single-writer acknowledgement there. */
  private DeltaTable upload(String prefix, boolean singleWriter) throws Exception {
    String location = s3.upload(source, prefix);
    S3Bucket.age(s3.backend(prefix), Instant.now().minus(Duration.ofDays(10)));
    ResurfacerConfig config = config("raw.events", location, singleWriter ? Map.of("s3.single-writer", "true") : Map.of());
    return DeltaTables.find("raw.events", config, dir).orElseThrow();
  }

  @Test
  void compactVacuumCheckpointAndCleanupOnS3AsSparkSeesThem() throws Exception {
    List<String> before = DeltaSpark.rows(source);
    try (DeltaTable table = upload("compact/events", true)) {
      assertThat(table.storage()).isInstanceOf(S3Storage.class);
      assertThat(DeltaDescriber.describe(table, Clock.systemUTC()).version()).isEqualTo(table.latest().getVersion());

      // DuckDB reads local paths only: the planner says so and gives the table to Kernel's runner
      CompactionPlan compactionPlan = DeltaCompactor.plan(table, CompactionOptions.defaults());
      assertThat(compactionPlan.runner()).isEqualTo("kernel");
      assertThat(compactionPlan.runnerReason()).startsWith("DuckDB reads local files only (no httpfs) and the table is on s3://lake");
      assertThatThrownBy(() -> DeltaCompactor.plan(table, CompactionOptions.defaults().runner(CompactionOptions.Runner.DUCKDB)))
          .isInstanceOf(SafetyRefusal.class).hasMessageContaining("--runner duckdb cannot rewrite raw.events: DuckDB reads local files only");

      CompactionResult compacted = DeltaCompactor.execute(table, CompactionOptions.defaults(), Clock.systemUTC(),
          dev.resurfacer.progress.Progress.NONE);
      assertThat(compacted.failedBins()).isEmpty();
      assertThat(compacted.plan().runner()).isEqualTo("kernel");
      assertThat(compacted.removedFiles()).isGreaterThan(compacted.addedFiles()).isGreaterThan(0);

      Path afterCompact = s3.download("compact/events", dir.resolve("after-compact"));
      assertThat(DeltaSpark.rows(afterCompact)).isEqualTo(before);
      var history = DeltaSpark.session().sql("DESCRIBE HISTORY " + DeltaSpark.table(afterCompact) + " LIMIT 1").collectAsList().get(0);
      assertThat(history.<String>getAs("operation")).isEqualTo("OPTIMIZE");

      // vacuum at zero retention: our preview on S3 lists what Spark's DRY RUN lists on the same table
      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      String prefix = table.storage().root().path() + "/";
      Set<String> ours = plan.deletions().stream().map(c -> c.file().path().substring(prefix.length())).collect(Collectors.toCollection(TreeSet::new));
      assertThat(ours).isNotEmpty().isEqualTo(sparkDryRun(afterCompact));
      Set<String> live = LiveFiles.of(table, table.latest()).stream().map(f -> f.file().path().substring(prefix.length()))
          .collect(Collectors.toSet());
      // Kernel's writer names the partition directories of our new files escaped once more than Spark's
      // (part=a%20b, logged part=a%2520b); compared as stored, they are these files and no others
      assertThat(live).isNotEmpty().anyMatch(p -> p.startsWith("part=x%25")).anyMatch(p -> p.startsWith("part=a"));
      assertThat(ours).doesNotContainAnyElementsOf(live);

      var vacuumed = DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
      assertThat(vacuumed.deleted()).isEqualTo(ours.size());
      assertThat(s3.keys("compact/events")).containsAll(live).doesNotContainAnyElementsOf(ours);
      Path afterVacuum = s3.download("compact/events", dir.resolve("after-vacuum"));
      assertThat(DeltaSpark.rows(afterVacuum)).isEqualTo(before);

      Checkpointer.Outcome checkpoint = Checkpointer.write(table, Clock.systemUTC());
      assertThat(checkpoint.written()).isTrue();
      long version = table.latest().getVersion();
      LogCleanup.Plan cleanup = LogCleanup.plan(table, Optional.of(Duration.ZERO), Clock.systemUTC());
      assertThat(cleanup.keepFromVersion()).isEqualTo(version);
      LogCleanup.execute(table, cleanup);
      DeltaLogFiles log = DeltaLogFiles.list(table);
      assertThat(log.of(LogFile.Kind.COMMIT)).allMatch(c -> c.version() >= version);
      assertThat(s3.keys("compact/events")).noneMatch(k -> k.startsWith("_delta_log/00000000000000000000"));
      Path afterCleanup = s3.download("compact/events", dir.resolve("after-cleanup"));
      assertThat(DeltaSpark.rows(afterCleanup)).isEqualTo(before);
    }
  }

  @Test
  void vacuumOnS3NeverLeavesTheTableAndRefusesANestedTable() throws Exception {
    try (DeltaTable table = upload("fences/events", true)) {
      Path neighbour = TestTables.write(s3.backend("fences/events2/part-0.parquet"), Duration.ofDays(30));
      Path stray = TestTables.write(s3.backend("fences/events/stray.parquet"), Duration.ofDays(30));
      Path hidden = TestTables.write(s3.backend("fences/events/_tmp/old.parquet"), Duration.ofDays(30));

      VacuumPlan plan = DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC());
      assertThat(plan.deletions()).extracting(c -> c.file().toString()).containsExactly(s3.location("fences/events/stray.parquet"));
      DeltaVacuum.execute(table, plan, VacuumOptions.tableDefaults(), Clock.systemUTC());
      assertThat(stray).doesNotExist();
      assertThat(neighbour).exists();
      assertThat(hidden).exists();

      TestTables.write(s3.backend("fences/events/part=c/nested/_delta_log/00000000000000000000.json"), Duration.ofDays(30));
      TestTables.write(s3.backend("fences/events/part=c/nested/part-0.parquet"), Duration.ofDays(30));
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class).hasMessageContaining("another table");
    }
  }

  @Test
  void commitsAreRefusedWhereTheStoreIgnoresConditionalPutsUnlessOneWriterIsDeclared() throws Exception {
    try (DeltaTable table = upload("unsafe/events", false)) {
      Set<String> before = s3.keys("unsafe/events");
      S3Storage storage = (S3Storage) table.storage();
      assertThat(storage.conditionalPut()).as("s3proxy 2.6.0 overwrites despite If-None-Match: *").isFalse();
      assertThatThrownBy(() -> DeltaCompactor.execute(table, CompactionOptions.defaults(), Clock.systemUTC(),
          dev.resurfacer.progress.Progress.NONE))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("does not honour conditional PUTs").hasMessageContaining("s3.single-writer: true")
          .hasMessageNotContaining(S3Bucket.SECRET_KEY);
      assertThat(s3.keys("unsafe/events")).as("nothing written, the probe removed").isEqualTo(before);
    }
  }

  @Test
  void badS3SettingsAreOneLineUsageErrors() {
    assertThatThrownBy(() -> DeltaTables.find("raw.events", config("raw.events", "s3://lake/x", Map.of("s3.single-writer", "maybe")), dir))
        .isInstanceOf(UsageException.class).hasMessageContaining("s3.single-writer must be true or false");
    assertThatThrownBy(() -> DeltaTables.find("raw.events", config("raw.events", "s3://lake/x", Map.of("s3.endpiont", "x")), dir))
        .isInstanceOf(UsageException.class).hasMessageContaining("unknown property 's3.endpiont'");
    assertThatThrownBy(() -> DeltaTables.find("raw.events", config("raw.events", "s3://lake/missing", Map.of()), dir))
        .isInstanceOf(UsageException.class).hasMessageContaining("is not a Delta table");
  }

  private static Set<String> sparkDryRun(Path t) {
    String root = t.toAbsolutePath() + "/";
    return DeltaSpark.session().sql("VACUUM " + DeltaSpark.table(t) + " RETAIN 0 HOURS DRY RUN").collectAsList().stream()
        .map(r -> r.getString(0).replaceFirst("^file:/*", "/"))   // Spark prints local paths unescaped
        .map(p -> p.substring(root.length()))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
