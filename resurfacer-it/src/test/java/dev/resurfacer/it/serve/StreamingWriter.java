package dev.resurfacer.it.serve;

import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.write.TableWrites;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * A streaming writer: small appends and, now and then, equality deletes of rows it wrote, into
 * several tables, keeping its own model of every table's rows. A commit whose outcome is uncertain
 * is looked up in the table's snapshots before the model changes.
 */
final class StreamingWriter {
  private static final Schema ID_ONLY = Orders.SCHEMA.select("id");

  private final Catalog catalog;
  private final List<String> tables;
  private final Map<String, TreeMap<Long, Record>> model = new TreeMap<>();
  private final Random random;
  private long nextId = 1_000_000;
  int commits;
  int deletes;

  StreamingWriter(Catalog catalog, List<String> tables, long seed) {
    this.catalog = catalog;
    this.tables = List.copyOf(tables);
    this.random = new Random(seed);
    tables.forEach(t -> model.put(t, new TreeMap<>()));
  }

  /** Seeds the model with what the table holds now (rows written before the writer started). */
  void adopt(String table, List<Record> rows) {
    rows.forEach(r -> model.get(table).put((Long) r.getField("id"), r));
  }

  /** One commit to a random table: mostly an append of a few rows, every fifth an equality delete of two rows. */
  synchronized void step() {
    String name = tables.get(random.nextInt(tables.size()));
    Table table = catalog.loadTable(TableIdentifier.parse(name));
    TreeMap<Long, Record> rows = model.get(name);
    if (random.nextInt(5) == 0 && rows.size() > 4) {
      List<Long> ids = new ArrayList<>(rows.keySet());
      List<Record> doomed = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Record r = GenericRecord.create(ID_ONLY);
        r.setField("id", ids.get(random.nextInt(ids.size())));
        doomed.add(r);
      }
      var partition = TableWrites.groupByPartition(
              table.spec(), table.schema(), List.of(rows.get((Long)
                  doomed.get(0).getField("id"))))
          .keySet()
          .iterator()
          .next();
      DeleteFile file =
          TableWrites.writeEqualityDeletes(table, table.spec(), partition, ID_ONLY, doomed);
      if (commit(
          table, file.location(), () -> table.newRowDelta().addDeletes(file).commit())) {
        doomed.forEach(r -> rows.remove((Long) r.getField("id")));
        deletes++;
      }
    } else {
      List<Record> fresh = Orders.rows(nextId, 1 + random.nextInt(4), 0);
      nextId += 10;
      List<DataFile> files = TableWrites.writeData(table, fresh);
      if (commit(table, files.get(0).location(), () -> {
        var append = table.newAppend();
        files.forEach(append::appendFile);
        append.commit();
      })) {
        fresh.forEach(r -> rows.put((Long) r.getField("id"), r));
      }
    }
    commits++;
  }

  private static boolean commit(Table table, String file, Runnable action) {
    try {
      action.run();
      return true;
    } catch (RuntimeException e) {
      // the catalog may have taken the commit before failing to answer: look for it
      table.refresh();
      for (Snapshot s : table.snapshots()) {
        for (DataFile f : s.addedDataFiles(table.io())) {
          if (f.location().equals(file)) {
            return true;
          }
        }
        for (DeleteFile f : s.addedDeleteFiles(table.io())) {
          if (f.location().equals(file)) {
            return true;
          }
        }
      }
      return false;
    }
  }

  /** The writer's model of the table, rendered as {@link Content} renders a table. */
  synchronized List<String> expected(String table) {
    return Content.of(Orders.SCHEMA, model.get(table).values());
  }

  /** What the table holds now, read while the writer is held still. */
  synchronized List<String> actual(String table) {
    return Content.of(catalog.loadTable(TableIdentifier.parse(table)));
  }
}
