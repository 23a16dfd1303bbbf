package dev.resurfacer.delta.vacuum;

import static dev.resurfacer.delta.VersionFiles.assertEveryFileOfEveryVersionExists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.log.Tombstone;
import dev.resurfacer.delta.log.Tombstones;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Full and lite vacuum ({@code --lite}, {@code --keep-versions} included) against delta-spark 4.1.0 as the oracle. */
class DeltaVacuumTest {
  private static final Duration OLD = Duration.ofDays(10);
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final VacuumOptions LITE_ZERO =
      new VacuumOptions(Optional.of(Duration.ZERO), true, true, List.of());

  @TempDir
  Path dir;

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

    assertThat(paths(plan))
        .containsExactlyInAnyOrder(oldOrphan.toString(), oldTopOrphan.toString());
    assertThat(paths(plan)).isEqualTo(sparkDryRun(t, null));
    assertThat(plan.deletions()).allMatch(c -> c.reason() == VacuumPlan.Reason.UNREFERENCED);
    assertThat(oldOrphan).exists();

    VacuumResult result =
        DeltaVacuum.execute(table, plan, VacuumOptions.tableDefaults(), Clock.systemUTC());

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
    // the partition values 'a b' and 'x%y' are stored percent-encoded in the log; their live files
    // are not candidates
    Set<String> live = LiveFiles.of(table, table.latest()).stream()
        .map(f -> f.file().path())
        .collect(Collectors.toSet());
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

    VacuumPlan forced = DeltaVacuum.plan(
        table, new VacuumOptions(Optional.of(Duration.ofDays(1)), true), Clock.systemUTC());
    assertThat(paths(forced)).contains(orphan.toString());
  }

  @Test
  void changeDataFilesAreNeverCandidatesAndTheChangeFeedStaysReadable() throws Exception {
    Path t = dir.resolve("feed");
    String table = DeltaSpark.table(t);
    DeltaSpark.sql(
        "CREATE TABLE " + table
            + " (id BIGINT, v STRING) USING delta TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
    DeltaSpark.sql("INSERT INTO " + table + " SELECT id, 'a' FROM range(0, 50)");
    DeltaSpark.sql("UPDATE " + table + " SET v = 'b' WHERE id % 5 = 0");
    Set<Path> cdc;
    try (var files = Files.walk(t.resolve("_change_data"))) {
      cdc = files.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
    assertThat(cdc).as("the UPDATE wrote change data files").isNotEmpty();
    TestTables.ageData(t, OLD);
    // the UPDATE's changes (version 2) are read from _change_data alone; older versions' data files
    // are vacuum's to delete
    List<String> changes = DeltaSpark.session()
        .sql("SELECT * FROM table_changes_by_path('" + t + "', 2)")
        .collectAsList()
        .stream()
        .map(Object::toString)
        .sorted()
        .toList();
    DeltaTable delta = DeltaTables.open("feed", t.toString(), dir);

    VacuumPlan plan = DeltaVacuum.plan(delta, ZERO, Clock.systemUTC());
    DeltaVacuum.execute(delta, plan, ZERO, Clock.systemUTC());

    assertThat(paths(plan)).noneMatch(p -> p.contains("_change_data"));
    assertThat(cdc).allMatch(Files::exists);
    assertThat(DeltaSpark.session()
            .sql("SELECT * FROM table_changes_by_path('" + t + "', 2)")
            .collectAsList()
            .stream()
            .map(Object::toString)
            .sorted()
            .toList())
        .isEqualTo(changes);
  }

  @Test
  void neverFollowsNorDeletesSymlinksAndRefusesATableNestedInside() throws Exception {
    DeltaTable table = copy();
    Path outside = dir.resolve("outside");
    Path outsideFile = TestTables.write(outside.resolve("precious.parquet"), OLD);
    Path dirLink = Files.createSymbolicLink(table.localRoot().resolve("part=c/linked"), outside);
    Path fileLink =
        Files.createSymbolicLink(table.localRoot().resolve("linked.parquet"), outsideFile);

    VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
    assertThat(plan.symlinksSkipped())
        .contains(LocalStorage.of(dirLink), LocalStorage.of(fileLink));
    DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());

    assertThat(outsideFile).exists();
    assertThat(Files.isSymbolicLink(dirLink)).isTrue();
    assertThat(Files.isSymbolicLink(fileLink)).isTrue();

    Files.createDirectories(table.localRoot().resolve("part=c/nested/_delta_log"));
    Path neighbour =
        TestTables.write(table.localRoot().resolve("part=c/nested/part-0.parquet"), OLD);
    assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("another table lives inside");
    assertThat(neighbour).exists();
  }

  @Test
  void aTableOpenedThroughASymlinkOrDotSegmentsComparesRealPaths() throws Exception {
    DeltaTable real = copy();
    Path link = Files.createSymbolicLink(dir.resolve("alias"), real.localRoot());
    DeltaTable viaLink =
        DeltaTables.open("alias", dir.resolve("alias/../alias/.").toString(), dir);

    VacuumPlan plan = DeltaVacuum.plan(viaLink, ZERO, Clock.systemUTC());

    Set<String> live = LiveFiles.of(real, real.latest()).stream()
        .map(f -> f.file().path())
        .collect(Collectors.toSet());
    assertThat(paths(plan))
        .isNotEmpty()
        .doesNotContainAnyElementsOf(live)
        .allMatch(p -> p.startsWith(real.localRoot().toString()));
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
      for (Path p :
          s.filter(p -> p.getFileName().toString().matches("0{19}[0-4]\\.json")).toList()) {
        Files.delete(p);
      }
    }
    Path orphan = TestTables.write(table.localRoot().resolve("stray.parquet"), OLD);

    assertThatThrownBy(
            () -> DeltaVacuum.plan(table, VacuumOptions.tableDefaults(), Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("oldest commit (version 5) is younger than the retention");
    assertThat(orphan).exists();
  }

  @Test
  void refusesWhenALiveFileIsMissingFromTheListing() throws Exception {
    DeltaTable table = copy();
    LiveFile victim = LiveFiles.of(table, table.latest()).get(0);
    Files.delete(LocalStorage.path(victim.file()));
    Path orphan = TestTables.write(table.localRoot().resolve("stray.parquet"), OLD);

    assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("which the listing did not find");
    assertThat(orphan).exists();
  }

  @Test
  void liteDeletesOnlyExpiredTombstonesAndEqualsSparksLiteDryRun() throws Exception {
    DeltaTable table = copy();
    Path t = table.localRoot();
    Path stray = TestTables.write(t.resolve("part=c/part-00000-stray.snappy.parquet"), OLD);
    Set<String> tombstoned = tombstonedPaths(table);
    List<String> latest = DeltaSpark.rows(t);

    assertThat(DeltaVacuum.plan(
                table,
                new VacuumOptions(Optional.empty(), false, true, List.of()),
                Clock.systemUTC())
            .deletions())
        .as("tombstones written just now are within the default retention")
        .isEmpty();
    VacuumPlan plan = DeltaVacuum.plan(table, LITE_ZERO, Clock.systemUTC());

    assertThat(plan.lite()).isTrue();
    assertThat(plan.listedFiles()).isZero();
    assertThat(plan.deletions())
        .isNotEmpty()
        .allMatch(c -> c.reason() == VacuumPlan.Reason.EXPIRED_TOMBSTONE);
    assertThat(paths(plan)).doesNotContain(stray.toString()).allMatch(tombstoned::contains);
    assertThat(paths(plan)).isEqualTo(sparkLiteDryRun(t));
    assertThat(paths(DeltaVacuum.plan(
            table, new VacuumOptions(Optional.of(Duration.ZERO), true), Clock.systemUTC())))
        .as("full mode lists the stray file")
        .contains(stray.toString());

    VacuumResult result = DeltaVacuum.execute(table, plan, LITE_ZERO, Clock.systemUTC());

    assertThat(result.deleted()).isEqualTo(plan.deletions().size());
    assertThat(paths(plan)).allMatch(p -> !Files.exists(Path.of(p)));
    assertThat(stray).exists();
    assertCurrentVersionComplete(table);
    assertThat(DeltaSpark.rows(t)).isEqualTo(latest);
  }

  @Test
  void keptVersionsKeepExactlyTheirFilesAndStayReadableByTimeTravel() throws Exception {
    DeltaTable table = copy();
    Path t = table.localRoot();
    List<String> atSix = DeltaSpark.rows(t, 6);
    Set<Path> filesOfSix = files(table, 6);
    VacuumOptions keepSix = new VacuumOptions(Optional.of(Duration.ZERO), true, false, List.of(6L));

    VacuumPlan unkept = DeltaVacuum.plan(
        table, new VacuumOptions(Optional.of(Duration.ZERO), true), Clock.systemUTC());
    assertThat(paths(unkept))
        .as("without --keep-versions, version 6 loses files")
        .anyMatch(p -> filesOfSix.contains(Path.of(p)));
    VacuumPlan lite = DeltaVacuum.plan(
        table,
        new VacuumOptions(Optional.of(Duration.ZERO), true, true, List.of(6L)),
        Clock.systemUTC());
    assertThat(paths(lite)).noneMatch(p -> filesOfSix.contains(Path.of(p)));

    VacuumPlan plan = DeltaVacuum.plan(table, keepSix, Clock.systemUTC());
    assertThat(plan.keptVersions()).containsExactly(6L);
    assertThat(paths(plan)).isNotEmpty().noneMatch(p -> filesOfSix.contains(Path.of(p)));
    DeltaVacuum.execute(table, plan, keepSix, Clock.systemUTC());

    assertThat(filesOfSix).allMatch(Files::exists);
    assertThat(DeltaSpark.rows(t, 6)).isEqualTo(atSix);
    assertCurrentVersionComplete(table);
  }

  @Test
  void aKeptVersionWhoseLogWasCleanedIsRefusedAndNothingIsDeleted() throws Exception {
    DeltaTable table = copy();
    try (var s = Files.list(table.localRoot().resolve("_delta_log"))) {
      for (Path p :
          s.filter(p -> p.getFileName().toString().matches("0{19}[0-3]\\.json")).toList()) {
        Files.delete(p);
      }
    }
    Path stray = TestTables.write(table.localRoot().resolve("stray.parquet"), OLD);
    for (boolean lite : new boolean[] {false, true}) {
      VacuumOptions keepTwo =
          new VacuumOptions(Optional.of(Duration.ZERO), true, lite, List.of(2L));
      assertThatThrownBy(() -> DeltaVacuum.plan(table, keepTwo, Clock.systemUTC()))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining(
              "--keep-versions 2: version 2 of raw.events can no longer be loaded");
    }
    assertThat(stray).exists();
  }

  /**
   * Attack: a later commit removes a live file under another spelling ({@code ./} segment, an
   * escaped {@code =}) long ago, and the next re-adds it as stored; lite must see one file, live.
   */
  @Test
  void aTombstoneSpellingALiveFileDifferentlyNeverDeletesIt() throws Exception {
    DeltaTable table = copy();
    Path log = table.localRoot().resolve("_delta_log");
    long v = table.latest().getVersion();
    String addLine = null;
    for (long i = v; i >= 0 && addLine == null; i--) {
      Path commit = log.resolve(String.format("%020d.json", i));
      addLine = Files.readAllLines(commit).stream()
          .filter(l -> l.startsWith("{\"add\"")
              && l.contains("part=a%20b")
              && !l.contains("\"deletionVector\":{"))
          .findFirst()
          .orElse(null);
    }
    assertThat(addLine).isNotNull();
    String path = addLine.replaceAll("^\\{\"add\":\\{\"path\":\"([^\"]+)\".*", "$1");
    StoredFile live = table.storage().resolve(path);
    assertThat(LiveFiles.of(table, table.latest()).stream().map(LiveFile::file)).contains(live);
    String respelled = "./" + path.replace("part=", "part%3D");
    Files.writeString(
        log.resolve(String.format("%020d.json", v + 1)),
        "{\"remove\":{\"path\":\"" + respelled
            + "\",\"deletionTimestamp\":1000,\"dataChange\":true}}\n");
    Files.writeString(log.resolve(String.format("%020d.json", v + 2)), addLine + "\n");
    assertThat(table.storage().resolve(respelled)).isEqualTo(live);

    VacuumPlan plan = DeltaVacuum.plan(table, LITE_ZERO, Clock.systemUTC());
    DeltaVacuum.execute(table, plan, LITE_ZERO, Clock.systemUTC());

    assertThat(plan.deletions()).noneMatch(c -> c.file().equals(live));
    assertThat(LocalStorage.path(live)).exists();
    assertCurrentVersionComplete(table);
  }

  private static Set<String> tombstonedPaths(DeltaTable table) {
    Set<String> out = new HashSet<>();
    for (Tombstone t : Tombstones.read(
        table, DeltaVacuum.commitsCovering(table, table.latest().getVersion(), Long.MAX_VALUE))) {
      out.add(t.file().path());
      t.deletionVector().flatMap(DeletionVectorRef::file).map(StoredFile::path).ifPresent(out::add);
    }
    return out;
  }

  private static Set<Path> files(DeltaTable table, long version) {
    Set<Path> out = new HashSet<>();
    for (LiveFile f : LiveFiles.of(table, table.atVersion(version))) {
      out.add(LocalStorage.path(f.file()));
      f.deletionVector()
          .flatMap(DeletionVectorRef::file)
          .map(LocalStorage::path)
          .ifPresent(out::add);
    }
    return out;
  }

  private static void assertCurrentVersionComplete(DeltaTable table) {
    assertThat(files(table, table.latest().getVersion())).allMatch(Files::exists);
  }

  private static List<String> sparkLiteDryRun(Path t) {
    return sparkFiles("VACUUM " + DeltaSpark.table(t) + " LITE RETAIN 0 HOURS DRY RUN");
  }

  private static List<String> paths(VacuumPlan plan) {
    return plan.deletions().stream().map(c -> c.file().path()).sorted().toList();
  }

  private static List<String> sparkDryRun(Path t, Integer hours) {
    return sparkFiles("VACUUM " + DeltaSpark.table(t)
        + (hours == null ? "" : " RETAIN " + hours + " HOURS") + " DRY RUN");
  }

  private static List<String> sparkFiles(String sql) {
    return DeltaSpark.session().sql(sql).collectAsList().stream()
        .map(r -> Path.of(java.net.URI.create(
                r.getString(0).startsWith("file:") ? r.getString(0) : "file://" + r.getString(0)))
            .toString())
        .sorted()
        .toList();
  }

  /**
   * What Spark reads at the last insert (before any delete), after the deletion-vector DELETE and
   * UPDATE, and now; {@code assertEveryFileOfEveryVersionExists} covers every other version file by file.
   */
  private static Map<Long, List<String>> contentOfSampledVersions(DeltaTable table) {
    Map<Long, List<String>> out = new HashMap<>();
    long latest = table.latest().getVersion();
    for (long v : new long[] {6, 8, latest}) {
      out.put(v, DeltaSpark.rows(table.localRoot(), v));
    }
    return out;
  }
}
