package dev.resurfacer.it.crash;

import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
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

/**
 * A table with something for every operation to do: many small appends over six aged day
 * partitions (compact, condense), one manifest per commit (rewrite-manifests), a tag and a branch
 * on older snapshots plus many snapshots (expire), position and equality deletes, and planted old
 * orphan files (remove-orphans).
 */
public final class EventsHistory {
  public static final String CATALOG = "lake";
  public static final TableIdentifier ID = TableIdentifier.of("db", "events");
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(4, "note", Types.StringType.get()));
  static final List<LocalDate> DAYS = List.of(
      LocalDate.of(2025, 1, 5),
      LocalDate.of(2025, 1, 20),
      LocalDate.of(2025, 2, 3),
      LocalDate.of(2025, 2, 14),
      LocalDate.of(2025, 3, 1),
      LocalDate.of(2025, 3, 9));
  static final long OLD = System.currentTimeMillis() - Duration.ofDays(10).toMillis();

  private EventsHistory() {}

  public static String[] catalogFlags(Path dir) {
    return new String[] {
      "--catalog-name",
      CATALOG,
      "--catalog-uri",
      SqliteCatalogs.uri(dir),
      "--warehouse",
      SqliteCatalogs.warehouse(dir)
    };
  }

  /** Builds the table in {@code dir} and plants {@code orphans} old unreferenced files in its data and metadata directories. */
  public static void build(Path dir, int appends, int orphans) {
    JdbcCatalog catalog = SqliteCatalogs.create(CATALOG, dir);
    try {
      catalog.createNamespace(Namespace.of("db"));
      Table table = catalog
          .buildTable(ID, SCHEMA)
          .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).day("ts").build())
          .withProperty(TableProperties.FORMAT_VERSION, "2")
          .create();
      List<DataFile> files = new ArrayList<>();
      long id = 0;
      for (int a = 0; a < appends; a++) {
        List<Record> rows = rows(id, 25, DAYS.get(a % DAYS.size()));
        id += 25;
        DataFile f = TableWrites.writeData(table, rows).get(0);
        files.add(f);
        table.newAppend().appendFile(f).commit();
        if (a == appends / 3) {
          table
              .manageSnapshots()
              .createTag("audit", table.currentSnapshot().snapshotId())
              .commit();
        }
        if (a == appends / 2) {
          table
              .manageSnapshots()
              .createBranch("dev", table.currentSnapshot().snapshotId())
              .commit();
          table
              .newAppend()
              .appendFile(
                  TableWrites.writeData(table, rows(100_000, 10, DAYS.get(0))).get(0))
              .toBranch("dev")
              .commit();
        }
      }
      DataFile victim = files.get(1);
      DeleteFile pos = TableWrites.writePositionDeletes(
          table,
          table.spec(),
          victim.partition(),
          List.of(new Position(victim.location(), 3), new Position(victim.location(), 7)));
      table.newRowDelta().addDeletes(pos).commit();
      DataFile other = files.get(2);
      Schema idOnly = SCHEMA.select("id");
      List<Record> keys = new ArrayList<>();
      for (long k : new long[] {50, 51, 52}) {
        Record r = GenericRecord.create(idOnly);
        r.setField("id", k);
        keys.add(r);
      }
      DeleteFile eq =
          TableWrites.writeEqualityDeletes(table, table.spec(), other.partition(), idOnly, keys);
      table.newRowDelta().addDeletes(eq).commit();
      plantOrphans(table, orphans);
    } finally {
      close(catalog);
    }
  }

  static void plantOrphans(Table table, int n) {
    try {
      for (int i = 0; i < n; i++) {
        Path p =
            Path.of(table.location(), i % 2 == 0 ? "data" : "metadata", "orphan-" + i + ".parquet");
        Files.writeString(p, "left behind by a failed writer " + i);
        p.toFile().setLastModified(OLD);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Record> rows(long start, int n, LocalDate day) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("region", i % 3 == 0 ? "eu" : "us");
      r.setField("ts", day.atStartOfDay().plusMinutes(i * 17L));
      r.setField("note", "event-" + (start + i));
      out.add(r);
    }
    return out;
  }

  static void close(JdbcCatalog catalog) {
    catalog.close();
  }
}
