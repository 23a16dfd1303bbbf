package dev.resurfacer.iceberg.deletes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeletionVectorRewriteTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "p", Types.StringType.get()));

  @TempDir
  Path dir;

  private Table v2Table() {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    return catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("p").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  private static List<Record> rows(long start, int n, String p) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("p", p);
      out.add(r);
    }
    return out;
  }

  /** Three data files in two partitions; position deletes in several files, one of them naming two data files. */
  private List<DataFile> history(Table table) {
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      DataFile d =
          TableWrites.writeData(table, rows(f * 100L, 100, f < 2 ? "a" : "b")).get(0);
      table.newAppend().appendFile(d).commit();
      files.add(d);
    }
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            table.spec(),
            files.get(0).partition(),
            List.of(
                new Position(files.get(0).location(), 1),
                new Position(files.get(1).location(), 2))))
        .commit();
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            table.spec(),
            files.get(0).partition(),
            List.of(
                new Position(files.get(0).location(), 1),
                new Position(files.get(0).location(), 7))))
        .commit();
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            table.spec(),
            files.get(2).partition(),
            List.of(
                new Position(files.get(2).location(), 0),
                new Position(files.get(2).location(), 99))))
        .commit();
    Schema idOnly = SCHEMA.select("id");
    Record gone = GenericRecord.create(idOnly);
    gone.setField("id", 150L);
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table, table.spec(), files.get(1).partition(), idOnly, List.of(gone)))
        .commit();
    table.refresh();
    return files;
  }

  @Test
  void upgradePreviewsThenCommitsAndRefusesADowngrade() {
    Table table = v2Table();
    history(table);
    List<String> before = Rows.sortedStrings(table);
    long snapshot = table.currentSnapshot().snapshotId();

    FormatUpgrade.Result preview = FormatUpgrade.plan(table, 3).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.consequences()).anyMatch(c -> c.contains("deletion vectors"));
    table.refresh();
    assertThat(HealthInspector.inspect("db.t", table).layout().formatVersion()).isEqualTo(2);

    FormatUpgrade.Result r = FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    assertThat(r.committed()).isTrue();
    assertThat(r.fromVersion()).isEqualTo(2);
    table.refresh();
    assertThat(HealthInspector.inspect("db.t", table).layout().formatVersion()).isEqualTo(3);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);

    assertThat(FormatUpgrade.execute(FormatUpgrade.plan(table, 3)).changes()).isFalse();
    assertThatThrownBy(() -> FormatUpgrade.execute(FormatUpgrade.plan(table, 2)))
        .hasMessageContaining("cannot be downgraded");
    assertThatThrownBy(() -> FormatUpgrade.execute(FormatUpgrade.plan(table, 4)))
        .hasMessageContaining("must be 2 or 3");
  }

  @Test
  void positionDeleteFilesBecomeOneVectorPerDataFileAndRowsStayTheSame() {
    Table table = v2Table();
    history(table);
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    List<String> before = Rows.sortedStrings(table);
    assertThat(before).hasSize(300 - 5 - 1);

    DeletionVectorRewrite.Result preview = DeletionVectorRewrite.plan(table).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.dataFiles()).isEqualTo(3);
    assertThat(preview.positionDeleteFiles()).isEqualTo(3);
    assertThat(preview.positions()).isEqualTo(5);
    assertThat(HealthInspector.inspect("db.t", table).deletes().positionDeleteFiles())
        .isEqualTo(3);

    DeletionVectorRewrite.Result r =
        DeletionVectorRewrite.execute(DeletionVectorRewrite.plan(table));
    assertThat(r.committed()).isTrue();
    assertThat(r.deletionVectors()).isEqualTo(3);
    assertThat(r.dataFiles()).isEqualTo(preview.dataFiles());
    assertThat(r.positions()).isEqualTo(preview.positions());
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().positionDeleteFiles()).isZero();
    assertThat(after.deletes().deletionVectors()).isEqualTo(3);
    assertThat(after.deletes().deletionVectorRecords()).isEqualTo(5);
    assertThat(after.deletes().equalityDeleteFiles()).isEqualTo(1);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);

    DeletionVectorRewrite.Result again =
        DeletionVectorRewrite.execute(DeletionVectorRewrite.plan(table));
    assertThat(again.committed()).isFalse();
    assertThat(again.positionDeleteFiles()).isZero();
  }

  @Test
  void aDataFileThatAlreadyHasAVectorKeepsItAndReadsDoNotChange() {
    Table table = v2Table();
    List<DataFile> files = history(table);
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    // a v3 writer deleted from file 0 with a vector; readers now ignore the v2 files for file 0
    table
        .newRowDelta()
        .addDeletes(
            TableWrites.writeDeletionVectors(table, Map.of(files.get(0), List.of(1L, 7L, 50L)))
                .get(0))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    DeletionVectorRewrite.Result r =
        DeletionVectorRewrite.execute(DeletionVectorRewrite.plan(table));
    assertThat(r.dataFiles()).isEqualTo(2);
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().positionDeleteFiles()).isZero();
    assertThat(after.deletes().deletionVectors()).isEqualTo(3);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
  }

  @Test
  void aConcurrentDeleteMakesTheCommitFailAndLeavesNoFileBehind() throws Exception {
    Table table = v2Table();
    List<DataFile> files = history(table);
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    Table other = SqliteCatalogs.create("test", dir).loadTable(TableIdentifier.of("db", "t"));
    List<String> before = Rows.sortedStrings(table);
    // planned against the current snapshot, then a writer deletes a row of file 1 before the commit
    assertThatThrownBy(() -> DeletionVectorRewrite.execute(
            DeletionVectorRewrite.plan(table),
            new DeletionVectorRewrite.Seam(() -> other
                .newRowDelta()
                .addDeletes(
                    TableWrites.writeDeletionVectors(other, Map.of(files.get(1), List.of(2L, 3L)))
                        .get(0))
                .commit())))
        .isInstanceOf(ValidationException.class);
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().positionDeleteFiles()).isEqualTo(3);
    assertThat(after.deletes().deletionVectors()).isEqualTo(1);
    assertThat(Rows.sortedStrings(table)).hasSize(before.size() - 1);
    try (var walk = java.nio.file.Files.walk(dir)) {
      assertThat(walk.filter(f -> f.toString().endsWith(".puffin")).count())
          .as("only the writer's vector is on disk")
          .isEqualTo(1);
    }
  }

  @Test
  void aPlanExecutedAfterAConcurrentDeleteFailsAndLeavesNoFileBehind() throws Exception {
    Table table = v2Table();
    List<DataFile> files = history(table);
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    Table other = SqliteCatalogs.create("test", dir).loadTable(TableIdentifier.of("db", "t"));
    DeletionVectorRewrite.Plan plan = DeletionVectorRewrite.plan(table);
    other
        .newRowDelta()
        .addDeletes(TableWrites.writeDeletionVectors(other, Map.of(files.get(1), List.of(2L, 3L)))
            .get(0))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    assertThatThrownBy(() -> DeletionVectorRewrite.execute(plan))
        .isInstanceOf(ValidationException.class);
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().positionDeleteFiles()).isEqualTo(3);
    assertThat(after.deletes().deletionVectors()).isEqualTo(1);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    try (var walk = java.nio.file.Files.walk(dir)) {
      assertThat(walk.filter(f -> f.toString().endsWith(".puffin")).count())
          .as("only the writer's vector is on disk")
          .isEqualTo(1);
    }
  }
}
