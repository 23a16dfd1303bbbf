package dev.resurfacer.iceberg.deletes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
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
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PositionDeleteRewriteTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "p", Types.StringType.get()));

  @TempDir
  Path dir;

  private Table table(int formatVersion) {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    return catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("p").build())
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
  }

  private static List<Record> rows(long start, int n) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("p", "a");
      out.add(r);
    }
    return out;
  }

  @Test
  void smallDeleteFilesBecomeOneAndEntriesForGoneFilesAreDropped() {
    Table table = table(2);
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      DataFile d = TableWrites.writeData(table, rows(f * 100L, 100)).get(0);
      table.newAppend().appendFile(d).commit();
      files.add(d);
    }
    for (int k = 0; k < 4; k++) {
      table
          .newRowDelta()
          .addDeletes(TableWrites.writePositionDeletes(
              table,
              table.spec(),
              files.get(0).partition(),
              List.of(
                  new Position(files.get(k % 3).location(), k),
                  new Position(files.get(2).location(), 50 + k))))
          .commit();
    }
    // the third file is replaced by a copy of its live rows: entries naming it no longer apply to
    // anything
    table.refresh();
    List<Record> live = new ArrayList<>();
    for (Record r : Rows.read(table)) {
      long id = (Long) r.getField("id");
      if (id >= 200) {
        Record copy = GenericRecord.create(SCHEMA);
        copy.setField("id", id);
        copy.setField("p", "a");
        live.add(copy);
      }
    }
    DataFile replacement = TableWrites.writeData(table, live).get(0);
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(files.get(2))
        .addFile(replacement)
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);
    TableHealth healthBefore = HealthInspector.inspect("db.t", table);
    assertThat(healthBefore.deletes().positionDeleteFiles()).isEqualTo(4);

    PositionDeleteRewrite.Result preview = PositionDeleteRewrite.plan(
            table, Map.of("min-input-files", "2", "rewrite-all", "true"))
        .preview();
    assertThat(preview.committed()).isFalse();
    assertThat(HealthInspector.inspect("db.t", table).deletes().positionDeleteFiles())
        .isEqualTo(4);

    PositionDeleteRewrite.Result r = PositionDeleteRewrite.execute(
        PositionDeleteRewrite.plan(table, Map.of("min-input-files", "2", "rewrite-all", "true")));

    assertThat(r.committed()).isTrue();
    assertThat(r.groups()).isEqualTo(preview.groups());
    assertThat(r.groups()).singleElement().satisfies(g -> {
      assertThat(g.inputFiles()).isEqualTo(4);
      assertThat(g.outputFiles()).isEqualTo(1);
      // entries: (f0,0) (f1,1) (f2,2) (f0,3) stay for f0/f1 only; every (f2, *) entry is dropped
      assertThat(g.keptEntries()).isEqualTo(3);
      assertThat(g.droppedEntries()).isEqualTo(5);
    });
    table.refresh();
    TableHealth after = HealthInspector.inspect("db.t", table);
    assertThat(after.deletes().positionDeleteFiles()).isEqualTo(1);
    assertThat(after.deletes().positionDeleteRecords()).isEqualTo(3);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
  }

  @Test
  void formatV3IsRefused() {
    Table table = table(3);
    assertThatThrownBy(() -> PositionDeleteRewrite.plan(table, Map.of()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("deletion vectors");
  }
}
