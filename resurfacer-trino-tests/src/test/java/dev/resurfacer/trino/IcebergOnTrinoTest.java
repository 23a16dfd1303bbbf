package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.trino.testing.TrinoLake;
import dev.resurfacer.trino.testing.TrinoTables;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every operation the Trino engine supports, run by a real Trino server on tables Trino wrote:
 * rows read back identical by Trino (type-tagged through JDBC) and by Iceberg's own reader, previews
 * that change nothing, and the refusals (z-order, foreign sort orders, unmapped options, Trino's
 * retention floors, files Trino would delete that our fences keep).
 */
class IcebergOnTrinoTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  static final TrinoTables TABLES = new TrinoTables(LAKE);

  static TrinoConnection trino(String catalog) {
    return new TrinoConnection(LAKE.trino().jdbcUrl(), catalog, "resurfacer-test", null, null);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Step run(String catalog, Operation op, IcebergTable t, Mode mode) throws Exception {
    for (OperationExecutor<?, IcebergTable> e : IcebergOnTrino.executors(trino(catalog), null)) {
      if (e.operationType().isInstance(op)) {
        t.table().refresh();
        return ((OperationExecutor) e).execute(op, t, mode);
      }
    }
    throw new AssertionError("no Trino executor for " + op.name());
  }

  static Step run(Operation op, IcebergTable t, Mode mode) throws Exception {
    return run(TrinoLake.CATALOG, op, t, mode);
  }

  static long dataFiles(Table table) throws Exception {
    table.refresh();
    long n = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask ignored : tasks) {
        n++;
      }
    }
    return n;
  }

  @Test
  void compactPreviewsThenRewritesThroughTrinoAndBothReadersSeeTheSameRows() throws Exception {
    IcebergTable t = TABLES.create("compact_all", 3, null);
    List<String> trinoBefore = TABLES.trinoRows("compact_all");
    List<String> oursBefore = Content.of(t.table());
    long snapshot = t.table().currentSnapshot().snapshotId();
    long filesBefore = dataFiles(t.table());
    assertThat(filesBefore).isEqualTo(6);

    Step preview = run(Compact.binpack(), t, Mode.PREVIEW);
    assertThat(preview.outcome()).isEqualTo(Outcome.PREVIEWED);
    assertThat(preview.metrics().get("candidate_files")).isEqualTo(6);
    t.table().refresh();
    assertThat(t.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);

    Step done = run(Compact.binpack(), t, Mode.COMMIT);
    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    assertThat(done.message()).contains("verified");
    assertThat(dataFiles(t.table())).isEqualTo(2);
    assertThat(t.table().currentSnapshot().operation()).isEqualTo("replace");
    assertThat(TABLES.trinoRows("compact_all")).isEqualTo(trinoBefore).hasSize(96);
    assertThat(Content.of(t.table())).isEqualTo(oursBefore);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"partition|cat=a|a|b", "where|cat = 'b'|b|a"})
  void compactOfOnePartitionLeavesTheOtherAlone(
      String option, String value, String rewritten, String kept) throws Exception {
    String name = "compact_" + option;
    IcebergTable t = TABLES.create(name, 2, null);
    List<String> before = TABLES.trinoRows(name);
    Set<String> untouched = filesOf(t.table(), kept);

    Step done = run(Compact.binpack().withOption(option, value), t, Mode.COMMIT);

    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    assertThat(filesOf(t.table(), rewritten)).hasSize(1);
    assertThat(filesOf(t.table(), kept)).isEqualTo(untouched).hasSize(2);
    assertThat(TABLES.trinoRows(name)).isEqualTo(before);
  }

  @Test
  void sortCompactionRunsOnlyByTheTablesDeclaredOrderAndZOrderIsRefused() throws Exception {
    IcebergTable unsorted = TABLES.create("compact_unsorted", 2, null);
    long snapshot = unsorted.table().currentSnapshot().snapshotId();
    assertThatThrownBy(() -> run(Compact.zOrder("id", "qty"), unsorted, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("no z-order");
    assertThatThrownBy(() -> run(Compact.sort(null), unsorted, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("has none");
    assertThatThrownBy(
            () -> run(Compact.binpack().withOption("min-input-files", "2"), unsorted, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("min-input-files");
    unsorted.table().refresh();
    assertThat(unsorted.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);

    IcebergTable sorted = TABLES.create("compact_sorted", 2, "sorted_by = ARRAY['qty']");
    assertThatThrownBy(() -> run(Compact.sort("id DESC"), sorted, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("declared order");
    List<String> before = TABLES.trinoRows("compact_sorted");
    Step done = run(Compact.sort(null), sorted, Mode.COMMIT);
    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    assertThat(TABLES.trinoRows("compact_sorted")).isEqualTo(before);
    assertThat(filesOf(sorted.table(), "a")).hasSize(1);
    assertThat(filesOf(sorted.table(), "b")).hasSize(1);
  }

  @Test
  void rewriteManifestsThroughTrinoKeepsTheRows() throws Exception {
    IcebergTable t = TABLES.create("manifest_rewrite", 3, null);
    List<String> trinoBefore = TABLES.trinoRows("manifest_rewrite");
    List<String> oursBefore = Content.of(t.table());
    List<String> manifestsBefore = manifestPaths(t);
    assertThat(manifestsBefore).hasSizeGreaterThan(1);

    assertThat(run(new RewriteManifests(), t, Mode.PREVIEW).outcome()).isEqualTo(Outcome.PREVIEWED);
    Step done = run(new RewriteManifests(), t, Mode.COMMIT);

    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    t.table().refresh();
    assertThat(t.table().currentSnapshot().operation()).isEqualTo("replace");
    // Trino's optimize_manifests regroups by its own rule (a CI run once got 4 from 3), so the
    // count is not pinned: the manifests were replaced and the rows kept is the outcome
    assertThat(manifestPaths(t)).isNotEqualTo(manifestsBefore);
    assertThat(TABLES.trinoRows("manifest_rewrite")).isEqualTo(trinoBefore);
    assertThat(Content.of(t.table())).isEqualTo(oursBefore);
  }

  @Test
  void expireThroughTrinoExpiresWhatWePreviewedAndKeepsTheRows() throws Exception {
    IcebergTable t = TABLES.create("expire", 3, null);
    List<String> trinoBefore = TABLES.trinoRows("expire");
    List<String> oursBefore = Content.of(t.table());
    int snapshots = count(t.table().snapshots());
    assertThat(snapshots).isEqualTo(5); // Trino's CREATE TABLE commits an empty snapshot

    assertThatThrownBy(() -> run(new ExpireSnapshots(Duration.ZERO, 3), t, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("history.expire.min-snapshots-to-keep");
    Step preview = run(new ExpireSnapshots(Duration.ZERO, null), t, Mode.PREVIEW);
    assertThat(preview.outcome()).isEqualTo(Outcome.PREVIEWED);
    assertThat(preview.metrics().get("expired_snapshots")).isEqualTo(4);
    t.table().refresh();
    assertThat(count(t.table().snapshots())).isEqualTo(5);

    Step done = run(new ExpireSnapshots(Duration.ZERO, 1), t, Mode.COMMIT);

    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    t.table().refresh();
    assertThat(count(t.table().snapshots())).isEqualTo(1);
    assertThat(TABLES.trinoRows("expire")).isEqualTo(trinoBefore);
    assertThat(Content.of(t.table())).isEqualTo(oursBefore);
  }

  @Test
  void trinosRetentionFloorsAreRefusalsNamingTheTrinoSetting() throws Exception {
    IcebergTable t = TABLES.create("floors", 2, null);
    long snapshot = t.table().currentSnapshot().snapshotId();
    String stray = strayFile(LAKE, t.table(), Duration.ofDays(2));

    for (Mode mode : Mode.values()) {
      assertThatThrownBy(() -> run(
              TrinoLake.FLOORED_CATALOG, new ExpireSnapshots(Duration.ofHours(1), null), t, mode))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining(
              "iceberg.expire-snapshots.min-retention is 7.00d on catalog iceberg_floored");
      assertThatThrownBy(
              () -> run(TrinoLake.FLOORED_CATALOG, new RemoveOrphans(Duration.ofHours(1)), t, mode))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining(
              "iceberg.remove-orphan-files.min-retention is 7.00d on catalog iceberg_floored");
    }
    // and when Trino itself refuses (our check bypassed), its error becomes the same kind of
    // refusal
    TrinoStatements direct = new TrinoStatements(trino(TrinoLake.FLOORED_CATALOG));
    assertThatThrownBy(
            () -> direct.execute(
                "expire_snapshots",
                "ALTER TABLE iceberg_floored.ops.floors EXECUTE expire_snapshots(retention_threshold => '1h')"))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("iceberg.expire-snapshots.min-retention")
        .hasMessageNotContaining("Query failed");

    t.table().refresh();
    assertThat(t.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(count(t.table().snapshots())).isEqualTo(4);
    assertThat(LAKE.s3().objects(t.table().location())).contains(stray);
  }

  @Test
  void removeOrphansThroughTrinoDeletesOnlyWhatOurFencesAlsoCallOrphaned() throws Exception {
    IcebergTable t = TABLES.create("orphans", 2, null);
    List<String> before = TABLES.trinoRows("orphans");
    String stray = strayFile(LAKE, t.table(), Duration.ofDays(2));
    String young = strayFile(LAKE, t.table(), Duration.ZERO);
    Set<String> referenced = dev.resurfacer.iceberg.testing.Invariants.reachable(t.table());

    Step preview = run(new RemoveOrphans(Duration.ofHours(1)), t, Mode.PREVIEW);
    assertThat(preview.outcome()).as(preview.message()).isEqualTo(Outcome.PREVIEWED);
    assertThat(LAKE.s3().objects(t.table().location())).contains(stray);

    Step done = run(new RemoveOrphans(Duration.ofHours(1)), t, Mode.COMMIT);

    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    assertThat(done.metrics().get("deleted_files")).isEqualTo(1);
    Set<String> left = LAKE.s3().objects(t.table().location());
    assertThat(left).doesNotContain(stray).contains(young).containsAll(referenced);
    assertThat(TABLES.trinoRows("orphans")).isEqualTo(before);
  }

  @Test
  void removeOrphansIsRefusedWhenTrinoWouldDeleteFilesOurFencesKeep() throws Exception {
    IcebergTable t = TABLES.create("quarantined", 1, null);
    // an earlier local run quarantined an orphan under the table location: ours never lists the
    // quarantine, Trino (no dry run, names matched under the whole location) would delete it
    strayFile(LAKE, t.table(), Duration.ofDays(2));
    dev.resurfacer.iceberg.orphans.OrphanReport moved =
        dev.resurfacer.iceberg.orphans.OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
            .olderThan(Duration.ofHours(1))
            .quarantine(true)
            .execute();
    assertThat(moved.removed().quarantined().files()).isEqualTo(1);
    String held = LAKE.s3().objects(t.table().location()).stream()
        .filter(o -> o.contains("quarantine"))
        .findFirst()
        .orElseThrow();
    age(LAKE, held, Duration.ofDays(2));
    Set<String> objects = LAKE.s3().objects(t.table().location());

    for (Mode mode : Mode.values()) {
      assertThatThrownBy(() -> run(new RemoveOrphans(Duration.ofHours(1)), t, mode))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("would delete 1 file(s) our fences keep")
          .hasMessageContaining(held);
    }
    assertThatThrownBy(() ->
            run(new RemoveOrphans(Duration.ofHours(1), true, Duration.ofDays(7)), t, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("cannot quarantine");
    assertThat(LAKE.s3().objects(t.table().location())).isEqualTo(objects);
  }

  @Test
  void anUnreachableTrinoOrAWrongCatalogIsOneClearLine() throws Exception {
    IcebergTable t = TABLES.create("bad_input", 1, null);
    long snapshot = t.table().currentSnapshot().snapshotId();
    TrinoConnection down =
        new TrinoConnection("jdbc:trino://127.0.0.1:1", "iceberg", "u", null, null);
    assertThatThrownBy(() -> new TrinoStatements(down).value("probe", "SELECT 1"))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("cannot reach Trino at jdbc:trino://127.0.0.1:1");
    assertThatThrownBy(() -> run("no_such_catalog", Compact.binpack(), t, Mode.COMMIT))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("Catalog 'no_such_catalog' not found");
    assertThatThrownBy(() -> new TrinoStatements(trino("no_such_catalog")).requireCatalog())
        .isInstanceOf(UsageException.class)
        .hasMessageContaining(
            "has no catalog 'no_such_catalog' (it has: delta, delta_floored, iceberg, iceberg_floored, iceberg_guarded");
    t.table().refresh();
    assertThat(t.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  // --- helpers

  static Set<String> filesOf(Table table, String cat) throws Exception {
    table.refresh();
    Set<String> out = new java.util.TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (cat.equals(String.valueOf(task.file().partition().get(0, Object.class)))) {
          out.add(task.file().location());
        }
      }
    }
    return out;
  }

  static int count(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }

  /**
   * An unreferenced file in the table's data folder, its modification time {@code age} ago. The
   * caller's lake: this class's {@code LAKE} has started only when this class ran first.
   */
  static String strayFile(TrinoLake lake, Table table, Duration age) throws Exception {
    String location =
        table.location() + "/data/stray-" + age.toSeconds() + "-" + System.nanoTime() + ".parquet";
    OutputFile out = table.io().newOutputFile(location);
    try (PositionOutputStream s = out.create()) {
      s.write(new byte[] {1, 2, 3});
    }
    age(lake, location, age);
    return location;
  }

  static void age(TrinoLake lake, String location, Duration age) throws Exception {
    Files.setLastModifiedTime(
        lake.s3().localFile(location), FileTime.from(Instant.now().minus(age)));
  }

  private static List<String> manifestPaths(IcebergTable t) {
    return t.table().currentSnapshot().dataManifests(t.table().io()).stream()
        .map(org.apache.iceberg.ManifestFile::path)
        .sorted()
        .toList();
  }
}
