package dev.resurfacer.iceberg.expire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.expire.ExpireResult.ReclaimedFile;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotExpiryTest {
  static final ExpireOptions ALL_BUT_LAST = new ExpireOptions(Duration.ZERO, 1, List.of(), false);

  @TempDir
  Path dir;

  JdbcCatalog catalog;
  Table table;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    table = Orders.create(catalog, "db", "orders", 2);
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
  }

  /** Appends, a position delete, statistics on old snapshots, and a final rewrite that replaces a file. */
  @Test
  void previewChangesNothingAndTheCommitDeletesExactlyThePreviewedFiles() throws Exception {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      DataFile f =
          TableWrites.writeData(table, Orders.rows(i * 100L, 20, i % 2)).get(0);
      table.newAppend().appendFile(f).commit();
      files.add(f);
    }
    DeleteFile posDeletes = TableWrites.writePositionDeletes(
        table,
        Orders.SPEC,
        files.get(1).partition(),
        List.of(new TableWrites.Position(files.get(1).location(), 3)));
    table.newRowDelta().addDeletes(posDeletes).commit();
    long statsSnapshot = table.currentSnapshot().snapshotId();
    addStatistics(statsSnapshot);
    PartitionStatisticsFile partitionStats =
        PartitionStatsHandler.computeAndWriteStatsFile(table, statsSnapshot);
    table.updatePartitionStatistics().setPartitionStatistics(partitionStats).commit();
    // the last snapshot replaces file 0: its files are unreachable once everything before it
    // expires
    DataFile replacement = TableWrites.writeData(table, Orders.rows(0, 20, 0)).get(0);
    table.newRewrite().deleteFile(files.get(0)).addFile(replacement).commit();
    Thread.sleep(5);

    table.refresh();
    List<String> rowsBefore = Rows.sortedStrings(table);
    String metadataBefore = metadataLocation();
    Set<Path> diskBefore = Disk.files(table);
    int snapshotsBefore = count(table.snapshots());

    ExpireResult preview = SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST).preview();

    assertThat(preview.committed()).isFalse();
    assertThat(preview.snapshots()).hasSize(snapshotsBefore - 1);
    assertThat(metadataLocation()).isEqualTo(metadataBefore);
    assertThat(Disk.files(table)).isEqualTo(diskBefore);
    Set<String> previewed = paths(preview.fileList());
    assertThat(previewed)
        .contains(files.get(0).location())
        .doesNotContain(replacement.location(), files.get(1).location());
    for (String category :
        List.of("data", "manifest", "manifest_list", "statistics", "partition_statistics")) {
      assertThat(preview.byCategory().get(category).files()).as(category).isPositive();
    }
    assertThat(preview.byCategory().get("delete").files())
        .isZero(); // the position delete still applies
    assertThat(preview.bytes())
        .isEqualTo(preview.fileList().stream().mapToLong(ReclaimedFile::bytes).sum());
    for (String p : previewed) {
      assertThat(Disk.exists(p)).as(p).isTrue();
    }

    ExpireResult done =
        SnapshotExpiry.execute(SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST));

    assertThat(done.committed()).isTrue();
    assertThat(paths(done.fileList())).isEqualTo(previewed);
    assertThat(done.notDeleted()).isEmpty();
    assertThat(done.byCategory()).isEqualTo(preview.byCategory());
    for (String p : previewed) {
      assertThat(Disk.exists(p)).as(p).isFalse();
    }
    table.refresh();
    assertThat(count(table.snapshots())).isEqualTo(1);
    assertThat(table.statisticsFiles()).isEmpty();
    assertThat(table.partitionStatisticsFiles()).isEmpty();
    for (String p : Disk.reachableFrom(table, table.currentSnapshot())) {
      assertThat(Disk.exists(p)).as(p).isTrue();
    }
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
    // what disappeared from disk is exactly what was reported
    Set<Path> gone = new TreeSet<>(diskBefore);
    gone.removeAll(Disk.files(table));
    assertThat(gone)
        .isEqualTo(
            previewed.stream().map(Disk::path).collect(Collectors.toCollection(TreeSet::new)));
  }

  /** A tag and a branch on an old snapshot whose data files were later replaced keep every file they reach. */
  @Test
  void neverDeletesAFileATagOrBranchStillReaches() throws Exception {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DataFile f = TableWrites.writeData(table, Orders.rows(i * 100L, 10, i)).get(0);
      table.newAppend().appendFile(f).commit();
      files.add(f);
    }
    long tagged = table.currentSnapshot().snapshotId();
    table
        .manageSnapshots()
        .createTag("audit", tagged)
        .createBranch("experiment", tagged)
        .commit();
    List<String> tagRows = rowsAt(tagged);
    Set<String> tagFiles = Disk.reachableFrom(table, table.snapshot(tagged));
    // replace every data file the tag reads, then add more history
    for (DataFile f : files) {
      DataFile copy = TableWrites.writeData(table, readFile(f)).get(0);
      table.newRewrite().deleteFile(f).addFile(copy).commit();
    }
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(900, 5, 0)).get(0))
        .commit();
    Thread.sleep(5);

    ExpireResult done =
        SnapshotExpiry.execute(SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST));

    assertThat(done.snapshots()).isNotEmpty();
    assertThat(done.fileList()).isNotEmpty();
    assertThat(paths(done.fileList())).doesNotContainAnyElementsOf(tagFiles);
    for (String p : tagFiles) {
      assertThat(Disk.exists(p)).as(p).isTrue();
    }
    table.refresh();
    assertThat(table.refs()).containsKeys("main", "audit", "experiment");
    assertThat(table.snapshot(tagged)).isNotNull();
    assertThat(rowsAt(tagged)).isEqualTo(tagRows);
    assertThat(rowsAt(table.refs().get("experiment").snapshotId())).isEqualTo(tagRows);
  }

  @Test
  void refsPastTheirMaxAgeAreDroppedOnlyWhenAskedFor() throws Exception {
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(0, 10, 0)).get(0))
        .commit();
    long old = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("old", old).setMaxRefAgeMs("old", 1).commit();
    table
        .newOverwrite()
        .deleteFile(
            table.currentSnapshot().addedDataFiles(table.io()).iterator().next())
        .addFile(TableWrites.writeData(table, Orders.rows(50, 10, 0)).get(0))
        .commit();
    Thread.sleep(5);
    String metadataBefore = metadataLocation();

    assertThatThrownBy(
            () -> SnapshotExpiry.execute(SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("old")
        .hasMessageContaining("--expire-refs");
    assertThat(metadataLocation()).isEqualTo(metadataBefore);

    ExpireResult done = SnapshotExpiry.execute(SnapshotExpiry.plan(
        "db.orders", table, new ExpireOptions(Duration.ZERO, 1, List.of(), true)));
    assertThat(done.refsDropped()).containsExactly("old");
    assertThat(done.snapshots())
        .extracting(ExpireResult.ExpiredSnapshot::snapshotId)
        .containsExactly(old);
    assertThat(done.byCategory().get("data").files()).isEqualTo(1);
  }

  @Test
  void tablePropertiesAreTheDefaults() throws Exception {
    for (int i = 0; i < 5; i++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, Orders.rows(i * 10L, 5, 0)).get(0))
          .commit();
    }
    table
        .updateProperties()
        .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "3")
        .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "0")
        .commit();
    Thread.sleep(5);
    assertThat(SnapshotExpiry.plan("db.orders", table, ExpireOptions.defaults())
            .preview()
            .snapshots())
        .hasSize(2);
    // snapshots younger than the default 5 days are kept however many there are
    table.updateProperties().remove(TableProperties.MAX_SNAPSHOT_AGE_MS).commit();
    assertThat(SnapshotExpiry.plan("db.orders", table, ExpireOptions.defaults())
            .preview()
            .snapshots())
        .isEmpty();
  }

  @Test
  void explicitSnapshotIdsAreCheckedAndBadOptionsAreUsageErrors() throws Exception {
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(0, 10, 0)).get(0))
        .commit();
    long first = table.currentSnapshot().snapshotId();
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(10, 10, 0)).get(0))
        .commit();
    table.manageSnapshots().createTag("keep", first).commit();

    assertThatThrownBy(() -> SnapshotExpiry.plan(
                "db.orders", table, new ExpireOptions(null, null, List.of(42L), false))
            .preview())
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("42");
    assertThatThrownBy(() -> SnapshotExpiry.execute(SnapshotExpiry.plan(
            "db.orders", table, new ExpireOptions(null, null, List.of(first), false))))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("keep");
    assertThat(table.snapshot(first)).isNotNull();
    assertThatThrownBy(() -> new ExpireOptions(null, 0, List.of(), false))
        .isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> new ExpireOptions(Duration.ofDays(-1), null, List.of(), false))
        .isInstanceOf(UsageException.class);

    table.manageSnapshots().removeTag("keep").commit();
    ExpireResult done = SnapshotExpiry.execute(SnapshotExpiry.plan(
        "db.orders", table, new ExpireOptions(null, null, List.of(first), false)));
    assertThat(done.snapshots())
        .extracting(ExpireResult.ExpiredSnapshot::snapshotId)
        .containsExactly(first);
    assertThat(done.byCategory().get("data").files()).isZero(); // its file is still live
    assertThat(done.byCategory().get("manifest_list").files()).isEqualTo(1);
  }

  @Test
  void aPartitionSpecNoRetainedSnapshotUsesIsRemoved() throws Exception {
    DataFile old = TableWrites.writeData(table, Orders.rows(0, 10, 0)).get(0);
    table.newAppend().appendFile(old).commit();
    table.updateSpec().removeField("day").commit(); // spec 1: unpartitioned
    DataFile moved = TableWrites.writeData(table, Rows.read(table)).get(0);
    table.newRewrite().deleteFile(old).addFile(moved).commit();
    // the rewrite's own manifest list still carries the removal entry in a spec-0 manifest; the
    // next commit drops it
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(50, 5, 1)).get(0))
        .commit();
    Thread.sleep(5);
    assertThat(table.specs()).containsOnlyKeys(0, 1);

    ExpireResult done =
        SnapshotExpiry.execute(SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST));

    assertThat(done.removedSpecIds()).containsExactly(0);
    table.refresh();
    assertThat(table.specs()).containsOnlyKeys(1);
    assertThat(Rows.sortedStrings(table)).hasSize(15);
    assertThat(Disk.exists(old.location())).isFalse();
  }

  @Test
  void gcDisabledIsRefused() {
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, Orders.rows(0, 10, 0)).get(0))
        .commit();
    table.updateProperties().set(TableProperties.GC_ENABLED, "false").commit();
    assertThatThrownBy(
            () -> SnapshotExpiry.plan("db.orders", table, ALL_BUT_LAST).preview())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("GC is disabled");
  }

  private void addStatistics(long snapshotId) throws IOException {
    String path = table.locationProvider().newDataLocation("stats-" + snapshotId + ".puffin");
    PuffinWriter writer =
        Puffin.write(table.io().newOutputFile(path)).createdBy("test").build();
    try (writer) {
      writer.add(
          new Blob("test-blob", List.of(1), snapshotId, 1, ByteBuffer.wrap(new byte[] {1, 2, 3})));
    }
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(
            snapshotId, path, writer.fileSize(), writer.footerSize(), List.of()))
        .commit();
  }

  private List<Record> readFile(DataFile file) {
    List<Record> out = new ArrayList<>();
    for (Record r : Rows.read(table)) {
      if (file.partition().get(0, Integer.class).equals((int)
              ((java.time.LocalDate) r.getField("day")).toEpochDay())
          && file.lowerBounds() != null) {
        long id = (Long) r.getField("id");
        long lower = org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.LongType.get(), file.lowerBounds().get(1));
        long upper = org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.LongType.get(), file.upperBounds().get(1));
        if (id >= lower && id <= upper) {
          out.add(r);
        }
      }
    }
    return out;
  }

  private List<String> rowsAt(long snapshotId) throws IOException {
    List<String> out = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      rows.forEach(r -> out.add(r.toString()));
    }
    out.sort(null);
    return out;
  }

  private String metadataLocation() {
    return ((org.apache.iceberg.HasTableOperations) table)
        .operations()
        .refresh()
        .metadataFileLocation();
  }

  private static Set<String> paths(List<ReclaimedFile> files) {
    return files.stream().map(ReclaimedFile::path).collect(Collectors.toCollection(TreeSet::new));
  }

  private static int count(Iterable<Snapshot> snapshots) {
    int n = 0;
    for (Snapshot ignored : snapshots) {
      n++;
    }
    return n;
  }
}
