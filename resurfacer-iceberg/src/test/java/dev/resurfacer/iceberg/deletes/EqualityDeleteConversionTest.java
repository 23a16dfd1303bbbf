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

class EqualityDeleteConversionTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "p", Types.StringType.get()),
      Types.NestedField.optional(3, "v", Types.StringType.get()));
  static final Schema ID = SCHEMA.select("id");
  static final Schema V = SCHEMA.select("v");

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  private Table table(PartitionSpec spec) {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    return catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  private static List<Record> rows(long start, int n, String p) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("p", p);
      r.setField("v", i % 3 == 0 ? null : "v" + (i % 7));
      out.add(r);
    }
    return out;
  }

  private static Record key(Schema schema, String field, Object value) {
    Record r = GenericRecord.create(schema);
    r.setField(field, value);
    return r;
  }

  private DataFile append(Table table, List<Record> rows) {
    DataFile f = TableWrites.writeData(table, rows).get(0);
    table.newAppend().appendFile(f).commit();
    return f;
  }

  /**
   * Sequence numbers: id 5 deleted in partition a before the second file (which repeats id 5) is added,
   * so that copy survives. Partition scope: partition b's delete of id 7 leaves partition a's id 7. Two
   * equality-field sets (id; v, null included), and position deletes on the same files.
   */
  private List<DataFile> history(Table table) {
    PartitionSpec spec = table.spec();
    List<DataFile> files = new ArrayList<>();
    files.add(append(table, rows(0, 50, "a")));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table, spec, files.get(0).partition(), ID, List.of(key(ID, "id", 5L))))
        .commit();
    files.add(append(table, rows(0, 50, "a")));
    files.add(append(table, rows(100, 50, "b")));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table,
            spec,
            files.get(2).partition(),
            ID,
            List.of(key(ID, "id", 7L), key(ID, "id", 120L))))
        .commit();
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table,
            spec,
            files.get(0).partition(),
            V,
            List.of(key(V, "v", "v4"), key(V, "v", null))))
        .commit();
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            spec,
            files.get(0).partition(),
            List.of(
                new Position(files.get(0).location(), 1),
                new Position(files.get(1).location(), 2))))
        .commit();
    table.refresh();
    return files;
  }

  @Test
  void v2EqualityDeletesBecomePositionDeletesUnderTheScanRules() {
    Table table = table(PartitionSpec.builderFor(SCHEMA).identity("p").build());
    history(table);
    List<String> before = Rows.sortedStrings(table);
    assertThat(before)
        .anyMatch(r -> r.contains("5") && r.contains("a"))
        .anyMatch(r -> r.startsWith("7") || r.contains("=7,"));

    EqualityDeleteConversion.Result preview =
        EqualityDeleteConversion.plan(table).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.equalityDeleteFiles()).isEqualTo(3);
    assertThat(HealthInspector.inspect("db.t", table).deletes().equalityDeleteFiles())
        .isEqualTo(3);

    EqualityDeleteConversion.Result r =
        EqualityDeleteConversion.execute(EqualityDeleteConversion.plan(table));
    assertThat(r.committed()).isTrue();
    assertThat(r.deletionVectors()).isFalse();
    assertThat(r.dataFiles()).isEqualTo(3);
    assertThat(r.dataFiles()).isEqualTo(preview.dataFiles());
    assertThat(r.deletedRows()).isEqualTo(preview.deletedRows());
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().equalityDeleteFiles()).isZero();
    assertThat(after.deletes().positionDeleteFiles()).isEqualTo(1 + r.writtenDeleteFiles());
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
  }

  @Test
  void v3EqualityDeletesBecomeDeletionVectorsMergedWithWhatApplied() {
    Table table = table(PartitionSpec.builderFor(SCHEMA).identity("p").build());
    List<DataFile> files = history(table);
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeDeletionVectors(table, Map.of(files.get(2), List.of(0L, 1L)))
            .get(0))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    EqualityDeleteConversion.Result r =
        EqualityDeleteConversion.execute(EqualityDeleteConversion.plan(table));
    assertThat(r.deletionVectors()).isTrue();
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().equalityDeleteFiles()).isZero();
    assertThat(after.deletes().deletionVectors()).isEqualTo(3);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    // the position-delete file no longer applies to the files that now have vectors
    assertThat(DeletionVectorRewrite.plan(table).preview().dataFiles()).isZero();
  }

  @Test
  void globalEqualityDeletesOfAnUnpartitionedSpecApplyEverywhere() {
    Table table = table(PartitionSpec.unpartitioned());
    append(table, rows(0, 30, "a"));
    append(table, rows(0, 30, "b"));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table, table.spec(), null, ID, List.of(key(ID, "id", 3L))))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);
    assertThat(before).hasSize(58);
    EqualityDeleteConversion.Result r =
        EqualityDeleteConversion.execute(EqualityDeleteConversion.plan(table));
    assertThat(r.deletedRows()).isEqualTo(2);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(HealthInspector.inspect("db.t", table).deletes().equalityDeleteFiles())
        .isZero();
  }

  @Test
  void aConcurrentAppendThatTheDeletesDoNotCoverCommitsAlongsideAndAConcurrentDeleteFailsIt() {
    Table table = table(PartitionSpec.builderFor(SCHEMA).identity("p").build());
    history(table);
    Table other = SqliteCatalogs.create("test", dir).loadTable(TableIdentifier.of("db", "t"));
    EqualityDeleteConversion.execute(
        EqualityDeleteConversion.plan(table),
        new EqualityDeleteConversion.Seam(() -> append(other, rows(0, 10, "a"))));
    table.refresh();
    // the new file's ids 0..9 include 5 and 7: no equality delete ever applied to it, none does now
    assertThat(Rows.read(table).stream().filter(r -> (Long) r.getField("id") == 5L))
        .hasSize(2);

    List<DataFile> more = history(table);
    List<String> before = Rows.sortedStrings(table);
    assertThatThrownBy(() -> EqualityDeleteConversion.execute(
            EqualityDeleteConversion.plan(table),
            new EqualityDeleteConversion.Seam(() -> other
                .newRowDelta()
                .addDeletes(TableWrites.writeEqualityDeletes(
                    other, other.spec(), more.get(0).partition(), ID, List.of(key(ID, "id", 10L))))
                .commit())))
        .isInstanceOf(ValidationException.class);
    table.refresh();
    assertThat(Rows.sortedStrings(table)).hasSizeLessThan(before.size());
  }
}
