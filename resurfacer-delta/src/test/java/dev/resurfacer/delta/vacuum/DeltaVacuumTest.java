package dev.resurfacer.delta.vacuum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.delta.table.DeltaTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaVacuumTest {
  private static final Duration OLD = Duration.ofDays(10);
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);

  @TempDir Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private DeltaTable copy() throws IOException {
    Path t = TestTables.copy(source, dir.resolve("events"));
    TestTables.ageData(t, OLD);
    return DeltaTables.open("raw.events", t.toString(), dir);
  }

  @Test
  void previewMatchesSparkDryRunAndEveryRetainedVersionStaysReadable() throws Exception {
    DeltaTable table = copy();
    Path t = table.localRoot();
    Path oldOrphan = TestTables.write(t.resolve("part=c/part-00000-orphan.snappy.parquet"), OLD);
    Path oldTopOrphan = TestTables.write(t.resolve("stray.parquet"), OLD);
    Path young = TestTables.write(t.resolve("part=a b/young.parquet"), Duration.ofHours(1));
    Path hidden = TestTables.write(t.resolve("part=c/.hidden.parquet"), OLD);
    Path hiddenDir = TestTables.write(t.resolve("_tmp/old.parquet"), OLD);
    Map<Long, List<String>> before = contentOfSampledVersions(table);

    VacuumPlan plan = DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC());

    assertThat(paths(plan)).containsExactlyInAnyOrder(oldOrphan.toString(), oldTopOrphan.toString());
    assertThat(paths(plan)).isEqualTo(sparkDryRun(t, null));
    assertThat(plan.deletions()).allMatch(c -> c.reason() == VacuumPlan.Reason.UNREFERENCED);
    assertThat(oldOrphan).exists();

    VacuumResult result = DeltaVacuum.execute(table, plan, VacuumOptions.tableDefaults(), Clock.systemUTC());

    assertThat(result.deleted()).isEqualTo(2);
    assertThat(oldOrphan).doesNotExist();
    assertThat(oldTopOrphan).doesNotExist();
    assertThat(young).exists();
    assertThat(hidden).exists();
    assertThat(hiddenDir).exists();
    assertEveryFileOfEveryVersionExists(table);
    assertThat(contentOfSampledVersions(table)).isEqualTo(before);
  }

  @Test
  void forcedZeroRetentionDeletesWhatSparkDeletesAndKeepsTheCurrentVersion() throws Exception {
    DeltaTable table = copy();
    Path t = table.localRoot();
    List<String> latest = DeltaSpark.rows(t);

    VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());

    assertThat(plan.deletions()).anyMatch(c -> c.reason() == VacuumPlan.Reason.EXPIRED_TOMBSTONE);
    assertThat(paths(plan)).isEqualTo(sparkDryRun(t, 0));
    // the partition values 'a b' and 'x%y' are stored percent-encoded in the log; their live files are not candidates
    Set<String> live = LiveFiles.of(table, table.latest()).stream().map(f -> f.file().path()).collect(Collectors.toSet());
    assertThat(live).anyMatch(p -> p.contains("part=x%25y")).anyMatch(p -> p.contains("part=a b"));
    assertThat(paths(plan)).doesNotContainAnyElementsOf(live);

    DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());

    assertThat(live).allMatch(p -> Files.exists(Path.of(p)));
    assertThat(DeltaSpark.rows(t)).isEqualTo(latest);
  }

  @Test
  void aRetentionShorterThanTheTablesIsRefusedUnlessForced() throws Exception {
    DeltaTable table = copy();
    Path orphan = TestTables.write(table.localRoot().resolve("stray.parquet"), Duration.ofDays(2));
    VacuumOptions oneDay = new VacuumOptions(Optional.of(Duration.ofDays(1)), false);

    assertThatThrownBy(() -> DeltaVacuum.plan(table, oneDay, Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("shorter than the table's delta.deletedFileRetentionDuration");
    assertThat(orphan).exists();

    VacuumPlan forced = DeltaVacuum.plan(table, new VacuumOptions(Optional.of(Duration.ofDays(1)), true), Clock.systemUTC());
    assertThat(paths(forced)).contains(orphan.toString());
  }

  @Test
  void neverFollowsNorDeletesSymlinksAndRefusesATableNestedInside() throws Exception {
    DeltaTable table = copy();
    Path outside = dir.resolve("outside");
    Path outsideFile = TestTables.write(outside.resolve("precious.parquet"), OLD);
    Path dirLink = Files.createSymbolicLink(table.localRoot().resolve("part=c/linked"), outside);
    Path fileLink = Files.createSymbolicLink(table.localRoot().resolve("linked.parquet"), outsideFile);

    VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
    assertThat(plan.symlinksSkipped()).contains(LocalStorage.of(dirLink), LocalStorage.of(fileLink));
    DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());

    assertThat(outsideFile).exists();
    assertThat(Files.isSymbolicLink(dirLink)).isTrue();
    assertThat(Files.isSymbolicLink(fileLink)).isTrue();

    Files.createDirectories(table.localRoot().resolve("part=c/nested/_delta_log"));
    Path neighbour = TestTables.write(table.localRoot().resolve("part=c/nested/part-0.parquet"), OLD);
    assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class).hasMessageContaining("another table lives inside");
    assertThat(neighbour).exists();
  }

  @Test
  void aTableOpenedThroughASymlinkOrDotSegmentsComparesRealPaths() throws Exception {
    DeltaTable real = copy();
    Path link = Files.createSymbolicLink(dir.resolve("alias"), real.localRoot());
    DeltaTable viaLink = DeltaTables.open("alias", dir.resolve("alias/../alias/.").toString(), dir);

    VacuumPlan plan = DeltaVacuum.plan(viaLink, ZERO, Clock.systemUTC());

    Set<String> live = LiveFiles.of(real, real.latest()).stream().map(f -> f.file().path()).collect(Collectors.toSet());
    assertThat(paths(plan)).isNotEmpty().doesNotContainAnyElementsOf(live).allMatch(p -> p.startsWith(real.localRoot().toString()));
    assertThat(link).exists();
  }

  @Test
  void tombstonesAreReadFromCommitsEvenWhenKernelsCheckpointDropsThem() throws Exception {
    DeltaTable table = copy();
    table.latest().writeCheckpoint(table.engine());
    Map<Long, List<String>> before = contentOfSampledVersions(table);

    VacuumPlan plan = DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC());
    DeltaVacuum.execute(table, plan, VacuumOptions.tableDefaults(), Clock.systemUTC());

    assertThat(plan.deletions()).isEmpty();
    assertEveryFileOfEveryVersionExists(table);
    assertThat(contentOfSampledVersions(table)).isEqualTo(before);
  }

  @Test
  void refusesWhenTheLogNoLongerReachesBackOverTheRetention() throws Exception {
    DeltaTable table = copy();
    try (var s = Files.list(table.localRoot().resolve("_delta_log"))) {
      for (Path p : s.filter(p -> p.getFileName().toString().matches("0{19}[0-4]\\.json")).toList()) {
        Files.delete(p);
      }
    }
    Path orphan = TestTables.write(table.localRoot().resolve("stray.parquet"), OLD);

    assertThatThrownBy(() -> DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class).hasMessageContaining("oldest commit (version 5) is younger than the retention");
    assertThat(orphan).exists();
  }

  @Test
  void refusesWhenALiveFileIsMissingFromTheListing() throws Exception {
    DeltaTable table = copy();
    LiveFile victim = LiveFiles.of(table, table.latest()).get(0);
    Files.delete(LocalStorage.path(victim.file()));
    Path orphan = TestTables.write(table.localRoot().resolve("stray.parquet"), OLD);

    assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class).hasMessageContaining("which the listing did not find");
    assertThat(orphan).exists();
  }

  private static List<String> paths(VacuumPlan plan) {
    return plan.deletions().stream().map(c -> c.file().path()).sorted().toList();
  }

  private static List<String> sparkDryRun(Path t, Integer hours) {
    String sql = "VACUUM " + DeltaSpark.table(t) + (hours == null ? "" : " RETAIN " + hours + " HOURS") + " DRY RUN";
    return DeltaSpark.session().sql(sql).collectAsList().stream()
        .map(r -> Path.of(java.net.URI.create(r.getString(0).startsWith("file:") ? r.getString(0) : "file://" + r.getString(0))).toString())
        .sorted().toList();
  }

  /**
   * What Spark reads at the last insert (before any delete), after the deletion-vector DELETE and
   * UPDATE, and now; {@link #assertEveryFileOfEveryVersionExists} covers every other version file by file.
   */
  private static Map<Long, List<String>> contentOfSampledVersions(DeltaTable table) {
    Map<Long, List<String>> out = new HashMap<>();
    long latest = table.latest().getVersion();
    for (long v : new long[] {6, 8, latest}) {
      out.put(v, DeltaSpark.rows(table.localRoot(), v));
    }
    return out;
  }

  private static void assertEveryFileOfEveryVersionExists(DeltaTable table) {
    List<Path> missing = new ArrayList<>();
    for (long v = 0; v <= table.latest().getVersion(); v++) {
      for (LiveFile f : LiveFiles.of(table, table.atVersion(v))) {
        if (!Files.exists(LocalStorage.path(f.file()))) {
          missing.add(LocalStorage.path(f.file()));
        }
        f.deletionVector().flatMap(DeletionVectorRef::file).map(LocalStorage::path).filter(p -> !Files.exists(p)).ifPresent(missing::add);
      }
    }
    assertThat(new TreeSet<>(missing)).isEmpty();
  }
}
