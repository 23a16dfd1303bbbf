package dev.resurfacer.iceberg.deletes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.deletes.DanglingDeletesResult.DanglingDelete;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DanglingDeletesTest {
  static final Schema ID = Orders.SCHEMA.select("id");

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
  }

  /**
   * Day 0 gets a position and an equality delete and is then compacted: both dangle. Day 1's deletes
   * still apply. Day 2's equality delete was committed before any day-2 data, so it never applies.
   */
  @Test
  void v2DropsExactlyTheDeletesCompactionLeftBehind() throws Exception {
    Table table = Orders.create(catalog, "db", "v2", 2);
    DataFile day0 = append(table, Orders.rows(0, 20, 0));
    DataFile day1 = append(table, Orders.rows(100, 20, 1));
    DeleteFile pos0 = commitDeletes(
        table,
        TableWrites.writePositionDeletes(
            table,
            Orders.SPEC,
            day0.partition(),
            List.of(new TableWrites.Position(day0.location(), 1))));
    DeleteFile eq0 = commitDeletes(table, equalityDelete(table, day0, 5L));
    DeleteFile pos1 = commitDeletes(
        table,
        TableWrites.writePositionDeletes(
            table,
            Orders.SPEC,
            day1.partition(),
            List.of(new TableWrites.Position(day1.location(), 2))));
    DeleteFile eq1 = commitDeletes(table, equalityDelete(table, day1, 105L));
    DataFile day2Probe = TableWrites.writeData(table, Orders.rows(200, 1, 2)).get(0);
    DeleteFile eq2 = commitDeletes(
        table,
        TableWrites.writeEqualityDeletes(
            table, Orders.SPEC, day2Probe.partition(), ID, List.of(idRow(205L))));
    append(table, Orders.rows(200, 10, 2)); // newer than eq2: id 205 survives
    compact(table, day0, 0);

    List<String> rowsBefore = Rows.sortedStrings(table);
    assertThat(rowsBefore).hasSize(20 - 2 + 20 - 2 + 10);
    assertThat(liveDeletePaths(table))
        .containsExactlyInAnyOrder(
            pos0.location(), eq0.location(), pos1.location(), eq1.location(), eq2.location());
    long snapshotBefore = table.currentSnapshot().snapshotId();

    DanglingDeletes.Plan plan = DanglingDeletes.plan("db.v2", table);
    DanglingDeletesResult preview = plan.preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.deleteFiles()).isEqualTo(5);
    assertThat(paths(preview.dangling()))
        .containsExactlyInAnyOrder(pos0.location(), eq0.location(), eq2.location());
    assertThat(preview.dangling())
        .extracting(DanglingDelete::kind)
        .containsExactlyInAnyOrder("position", "equality", "equality");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);

    DanglingDeletesResult done = DanglingDeletes.execute(plan);

    assertThat(done.committed()).isTrue();
    assertThat(paths(done.dangling())).isEqualTo(paths(preview.dangling()));
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(done.snapshotId());
    assertThat(table.currentSnapshot().operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(liveDeletePaths(table)).containsExactlyInAnyOrder(pos1.location(), eq1.location());
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
    for (DeleteFile d : List.of(pos0, eq0, eq2)) {
      assertThat(Disk.exists(d.location()))
          .as("metadata-only: the file stays until expiry")
          .isTrue();
    }

    DanglingDeletesResult again = DanglingDeletes.execute(DanglingDeletes.plan("db.v2", table));
    assertThat(again.committed()).isFalse();
    assertThat(again.dangling()).isEmpty();
  }

  /** Format v3: core already drops the deletion vectors of rewritten data files; the equality delete is ours to drop. */
  @Test
  void v3WithDeletionVectors() throws Exception {
    Table table = Orders.create(catalog, "db", "v3", 3);
    DataFile day0 = append(table, Orders.rows(0, 20, 0));
    DataFile day1 = append(table, Orders.rows(100, 20, 1));
    List<DeleteFile> dvs =
        TableWrites.writeDeletionVectors(table, Map.of(day0, List.of(1L, 2L), day1, List.of(3L)));
    var delta = table.newRowDelta();
    dvs.forEach(delta::addDeletes);
    delta.commit();
    DeleteFile eq0 = commitDeletes(table, equalityDelete(table, day0, 7L));
    DeleteFile dv1 = dvs.stream()
        .filter(d -> d.referencedDataFile().equals(day1.location()))
        .findFirst()
        .orElseThrow();
    assertThat(liveDeletePaths(table)).hasSize(3);

    compact(table, day0, 0);
    List<String> rowsBefore = Rows.sortedStrings(table);
    assertThat(rowsBefore).hasSize(20 - 3 + 20 - 1);
    assertThat(liveDeletes(table)).hasSize(2); // the vector for the rewritten file went with it

    DanglingDeletes.Plan plan = DanglingDeletes.plan("db.v3", table);
    assertThat(paths(plan.preview().dangling())).containsExactly(eq0.location());
    // a writer commits after the plan: execute finds the dangling files again in the snapshot it
    // commits on
    append(table, Orders.rows(300, 2, 2));
    long appended = table.currentSnapshot().snapshotId();
    rowsBefore = Rows.sortedStrings(table);

    DanglingDeletesResult done = DanglingDeletes.execute(plan);
    assertThat(paths(done.dangling())).containsExactly(eq0.location());
    assertThat(done.snapshotId()).isNotEqualTo(appended);
    table.refresh();
    assertThat(table.currentSnapshot().parentId()).isEqualTo(appended);
    table.refresh();
    assertThat(liveDeletes(table)).singleElement().satisfies(d -> {
      assertThat(d.location()).isEqualTo(dv1.location());
      assertThat(d.referencedDataFile()).isEqualTo(day1.location());
    });
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
  }

  @Test
  void aTableWithoutDeletesIsANoOp() {
    Table table = Orders.create(catalog, "db", "plain", 2);
    assertThat(DanglingDeletes.execute(DanglingDeletes.plan("db.plain", table)).committed())
        .isFalse();
    append(table, Orders.rows(0, 5, 0));
    long snapshot = table.currentSnapshot().snapshotId();
    DanglingDeletesResult done = DanglingDeletes.execute(DanglingDeletes.plan("db.plain", table));
    assertThat(done.committed()).isFalse();
    assertThat(done.snapshotId()).isEqualTo(snapshot);
  }

  private static DataFile append(Table table, List<Record> rows) {
    DataFile f = TableWrites.writeData(table, rows).get(0);
    table.newAppend().appendFile(f).commit();
    return f;
  }

  private static DeleteFile commitDeletes(Table table, DeleteFile d) {
    table.newRowDelta().addDeletes(d).commit();
    return d;
  }

  private static DeleteFile equalityDelete(Table table, DataFile target, long id) {
    return TableWrites.writeEqualityDeletes(
        table, Orders.SPEC, target.partition(), ID, List.of(idRow(id)));
  }

  private static Record idRow(long id) {
    Record r = GenericRecord.create(ID);
    r.setField("id", id);
    return r;
  }

  /** What a compaction does: replace one partition's data file with a file of its live rows. */
  private static void compact(Table table, DataFile old, int day) {
    long readFrom = table.currentSnapshot().snapshotId();
    List<Record> live = Rows.read(table).stream()
        .filter(r -> r.getField("day").equals(Orders.DAY0.plusDays(day)))
        .toList();
    DataFile replacement = TableWrites.writeData(table, live).get(0);
    table
        .newRewrite()
        .validateFromSnapshot(readFrom)
        .deleteFile(old)
        .addFile(replacement)
        .commit();
  }

  private static List<DeleteFile> liveDeletes(Table table) throws IOException {
    table.refresh();
    List<DeleteFile> out = new java.util.ArrayList<>();
    for (ManifestFile m : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
        reader.forEach(out::add);
      }
    }
    return out;
  }

  private static List<String> liveDeletePaths(Table table) throws IOException {
    return liveDeletes(table).stream().map(DeleteFile::location).toList();
  }

  private static Set<String> paths(List<DanglingDelete> files) {
    return files.stream().map(DanglingDelete::path).collect(Collectors.toCollection(TreeSet::new));
  }
}
