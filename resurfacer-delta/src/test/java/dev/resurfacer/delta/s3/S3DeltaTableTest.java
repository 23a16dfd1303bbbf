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
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StoredFile;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.delta.DeltaLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta tables in a real S3 API (s3proxy on loopback), addressed as {@code s3://bucket/path} through
 * a {@code type: delta} catalog with the Iceberg S3 keys. delta-spark, the oracle, writes and reads the
 * same objects as {@code s3a://bucket/path} through Hadoop's S3A: it writes the table on the server,
 * and after each of our operations it reads the rows, the history and its vacuum preview there.
 */
class S3DeltaTableTest {
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final String SOURCE = "source/events";
  private static S3Bucket s3;

  @TempDir
  Path dir;

  /** One table written by delta-spark on S3 (partitioned, deletion vectors, DELETE/UPDATE/MERGE, a checkpoint); tests copy it. */
  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Bucket("lake").openToSpark();
    String t = DeltaSpark.table(s3.s3a(SOURCE));
    TestTables.partitionedWithDeletes(s3.s3a(SOURCE));
    DeltaSpark.sql(
        "MERGE INTO " + t
            + " AS t USING (SELECT id, 'a b' AS part, 'merged' AS v FROM range(0, 700, 13)) AS s"
            + " ON t.id = s.id AND t.part = s.part WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *");
    S3Bucket.age(s3.backend(SOURCE), Instant.now().minus(Duration.ofDays(10)));
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  private static ResurfacerConfig config(String name, String location, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(s3.properties());
    props.putAll(extra);
    return new ResurfacerConfig(
        Map.of(
            "deltas",
            new CatalogConfig(
                "deltas",
                "delta",
                null,
                null,
                props,
                Set.of("s3.secret-access-key"),
                Map.of(name, location))),
        null);
  }

  /** s3proxy ignores If-None-Match on PUT, so commits need the single-writer acknowledgement there. */
  private DeltaTable copy(String prefix, boolean singleWriter) throws Exception {
    String location = s3.copy(SOURCE, prefix);
    ResurfacerConfig config = config(
        "raw.events", location, singleWriter ? Map.of("s3.single-writer", "true") : Map.of());
    return DeltaTables.find("raw.events", config, dir).orElseThrow();
  }

  @Test
  void compactZOrderVacuumCheckpointAndCleanupOnS3AsSparkSeesThemThere() throws Exception {
    String spark = s3.s3a("compact/events");
    try (DeltaTable table = copy("compact/events", true)) {
      List<String> before = DeltaSpark.typedRows(spark);
      assertThat(before).hasSizeGreaterThan(300).anyMatch(r -> r.contains("v:string=merged/"));
      assertThat(table.storage()).isInstanceOf(ObjectStorage.class);
      assertThat(DeltaDescriber.describe(table, Clock.systemUTC()).version())
          .isEqualTo(table.latest().getVersion());

      // DuckDB reads local paths only: the planner says so and gives the table to Kernel's runner
      CompactionPlan compactionPlan =
          DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
      assertThat(compactionPlan.runner()).isEqualTo("kernel");
      assertThat(compactionPlan.runnerReason())
          .startsWith("DuckDB reads local files only (no httpfs) and the table is on s3://lake");
      assertThatThrownBy(() -> DeltaCompactor.plan(
              table, CompactionOptions.defaults().runner(CompactionOptions.Runner.DUCKDB)))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining(
              "--runner duckdb cannot rewrite raw.events: DuckDB reads local files only");

      CompactionResult compacted = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          Progress.NONE);
      assertThat(compacted.failedBins()).isEmpty();
      assertThat(compacted.plan().runner()).isEqualTo("kernel");
      assertThat(compacted.removedFiles()).isGreaterThan(compacted.addedFiles()).isGreaterThan(0);
      assertThat(DeltaSpark.typedRows(spark)).isEqualTo(before);
      Row optimize = lastCommit(spark);
      assertThat(optimize.<String>getAs("operation")).isEqualTo("OPTIMIZE");
      assertThat(optimize.<Long>getAs("version"))
          .isEqualTo(
              compacted.committedVersions().get(compacted.committedVersions().size() - 1));

      // Spark keeps writing on top of our commits; then our z-order rewrites its new files and ours
      for (int i = 0; i < 2; i++) {
        DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(spark)
            + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a b' ELSE 'x%y' END, concat('w', id)"
            + " FROM range(" + (1000 + i * 50) + ", " + (1050 + i * 50) + ")");
      }
      List<String> appended = DeltaSpark.typedRows(spark);
      assertThat(appended).hasSize(before.size() + 100);
      CompactionResult zOrdered = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults().zOrder(List.of("id", "v"))),
          Clock.systemUTC(),
          Progress.NONE);
      assertThat(zOrdered.failedBins()).isEmpty();
      assertThat(zOrdered.committedVersions()).isNotEmpty();
      assertThat(DeltaSpark.typedRows(spark)).isEqualTo(appended);
      Row zOrder = lastCommit(spark);
      assertThat(zOrder.<String>getAs("operation")).isEqualTo("OPTIMIZE");
      assertThat(zOrder.getJavaMap(zOrder.fieldIndex("operationParameters")))
          .containsEntry("zOrderBy", "[\"id\",\"v\"]");

      // vacuum at zero retention: our preview on s3:// names the very objects Spark's DRY RUN names
      // on s3a://
      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      Set<StoredFile> ours =
          plan.deletions().stream().map(c -> c.file()).collect(Collectors.toSet());
      assertThat(ours).isNotEmpty().isEqualTo(sparkDryRun(spark));
      Set<StoredFile> live = LiveFiles.of(table, table.latest()).stream()
          .map(f -> f.file())
          .collect(Collectors.toSet());
      assertThat(live).isNotEmpty().doesNotContainAnyElementsOf(ours);
      String prefix = table.storage().root().path() + "/";
      Set<String> oursKeys =
          ours.stream().map(f -> f.path().substring(prefix.length())).collect(Collectors.toSet());
      Set<String> liveKeys =
          live.stream().map(f -> f.path().substring(prefix.length())).collect(Collectors.toSet());
      // Kernel's writer names the partition directories of our new files escaped once more than
      // Spark's
      // (part=a%20b, logged part=a%2520b); compared as stored, they are these files and no others
      assertThat(liveKeys)
          .anyMatch(p -> p.startsWith("part=x%25"))
          .anyMatch(p -> p.startsWith("part=a"));

      var vacuumed = DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
      assertThat(vacuumed.deleted()).isEqualTo(ours.size());
      assertThat(s3.keys("compact/events"))
          .containsAll(liveKeys)
          .doesNotContainAnyElementsOf(oursKeys);
      assertThat(DeltaSpark.typedRows(spark)).isEqualTo(appended);
      assertThat(sparkDryRun(spark))
          .as("nothing left for Spark's vacuum either")
          .isEmpty();

      // Spark's checkpoint of the MERGE holds the tombstones of its DELETE/UPDATE/MERGE: ours is
      // refused until they expire
      assertThatThrownBy(() -> Checkpointer.execute(Checkpointer.plan(table, Clock.systemUTC())))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining(
              "tombstones within the table's delta.deletedFileRetentionDuration precede the checkpoint of version 10");
      Clock weekLater = Clock.offset(Clock.systemUTC(), Duration.ofDays(8));
      Checkpointer.Outcome checkpoint = Checkpointer.execute(Checkpointer.plan(table, weekLater));
      assertThat(checkpoint.written()).isTrue();
      long version = table.latest().getVersion();
      LogCleanup.Plan cleanup =
          LogCleanup.plan(table, Optional.of(Duration.ZERO), Clock.systemUTC());
      assertThat(cleanup.keepFromVersion()).isEqualTo(version);
      LogCleanup.execute(table, cleanup);
      DeltaLogFiles log = DeltaLogFiles.list(table);
      assertThat(log.of(LogFile.Kind.COMMIT)).allMatch(c -> c.version() >= version);
      assertThat(s3.keys("compact/events"))
          .noneMatch(k -> k.startsWith("_delta_log/00000000000000000000"));
      DeltaLog.clearCache(); // Spark reads the cleaned log from S3, not from its cached snapshot
      assertThat(DeltaSpark.typedRows(spark)).isEqualTo(appended);
      assertThat(lastCommit(spark).<Long>getAs("version")).isEqualTo(version);
    }
  }

  @Test
  void vacuumOnS3NeverLeavesTheTableAndRefusesANestedTable() throws Exception {
    try (DeltaTable table = copy("fences/events", true)) {
      Path neighbour =
          TestTables.write(s3.backend("fences/events2/part-0.parquet"), Duration.ofDays(30));
      Path stray = TestTables.write(s3.backend("fences/events/stray.parquet"), Duration.ofDays(30));
      Path hidden =
          TestTables.write(s3.backend("fences/events/_tmp/old.parquet"), Duration.ofDays(30));

      VacuumPlan plan = DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC());
      assertThat(plan.deletions())
          .extracting(c -> c.file().toString())
          .containsExactly(s3.location("fences/events/stray.parquet"));
      DeltaVacuum.execute(table, plan, VacuumOptions.tableDefaults(), Clock.systemUTC());
      assertThat(stray).doesNotExist();
      assertThat(neighbour).exists();
      assertThat(hidden).exists();

      TestTables.write(
          s3.backend("fences/events/part=c/nested/_delta_log/00000000000000000000.json"),
          Duration.ofDays(30));
      TestTables.write(
          s3.backend("fences/events/part=c/nested/part-0.parquet"), Duration.ofDays(30));
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("another table");
    }
  }

  @Test
  void commitsAreRefusedWhereTheStoreIgnoresConditionalPutsUnlessOneWriterIsDeclared()
      throws Exception {
    try (DeltaTable table = copy("unsafe/events", false)) {
      Set<String> before = s3.keys("unsafe/events");
      ObjectStorage storage = (ObjectStorage) table.storage();
      assertThat(storage.conditionalPut())
          .as("s3proxy 2.6.0 overwrites despite If-None-Match: *")
          .isFalse();
      assertThatThrownBy(() -> DeltaCompactor.execute(
              DeltaCompactor.plan(table, CompactionOptions.defaults()),
              Clock.systemUTC(),
              dev.resurfacer.progress.Progress.NONE))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("does not honour conditional PUTs")
          .hasMessageContaining("s3.single-writer: true")
          .hasMessageNotContaining(S3Bucket.SECRET_KEY);
      assertThat(s3.keys("unsafe/events"))
          .as("nothing written, the probe removed")
          .isEqualTo(before);
    }
  }

  /** Kernel reads {@code _last_checkpoint} as a file of size 0 (unknown): read as such it held nothing, and every snapshot listed the log from 0. */
  @Test
  void theLastCheckpointSparkWroteIsReadThoughKernelGivesItNoSize() throws Exception {
    try (DeltaTable table = copy("checkpointed/events", true)) {
      String path =
          table.storage().kernelPath(table.storage().root()) + "/_delta_log/_last_checkpoint";
      var schema = new io.delta.kernel.types.StructType()
          .add("version", io.delta.kernel.types.LongType.LONG);
      List<Long> versions = new java.util.ArrayList<>();
      try (var rows = table
          .engine()
          .getJsonHandler()
          .readJsonFiles(
              dev.resurfacer.delta.kernel.KernelIterators.of(
                  List.of(io.delta.kernel.utils.FileStatus.of(path, 0, 0))),
              schema,
              Optional.empty())) {
        rows.forEachRemaining(batch -> {
          var column = batch.getColumnVector(0);
          for (int i = 0; i < batch.getSize(); i++) {
            versions.add(column.getLong(i));
          }
        });
      }
      assertThat(versions).containsExactly(10L);
    }
  }

  @Test
  void badS3SettingsAreOneLineUsageErrors() {
    assertThatThrownBy(() -> DeltaTables.find(
            "raw.events",
            config("raw.events", "s3://lake/x", Map.of("s3.single-writer", "maybe")),
            dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("s3.single-writer must be true or false");
    assertThatThrownBy(() -> DeltaTables.find(
            "raw.events", config("raw.events", "s3://lake/x", Map.of("s3.endpiont", "x")), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown property 's3.endpiont'");
    assertThatThrownBy(() -> DeltaTables.find(
            "raw.events", config("raw.events", "s3://lake/missing", Map.of()), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is not a Delta table");
  }

  private static Row lastCommit(String location) {
    return DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(location) + " LIMIT 1")
        .collectAsList()
        .get(0);
  }

  /** The files Spark's VACUUM would delete, as it prints them (s3a:// URIs). */
  private static Set<StoredFile> sparkDryRun(String location) {
    return DeltaSpark.session()
        .sql("VACUUM " + DeltaSpark.table(location) + " RETAIN 0 HOURS DRY RUN")
        .collectAsList()
        .stream()
        // a Hadoop Path prints its URI unescaped (the key part=x%25y as is): StoredFile reads URIs
        .map(r -> StoredFile.parse(
            new org.apache.hadoop.fs.Path(r.getString(0)).toUri().toString()))
        .collect(Collectors.toSet());
  }
}
