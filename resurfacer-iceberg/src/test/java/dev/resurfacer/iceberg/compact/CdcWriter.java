package dev.resurfacer.iceberg.compact;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A CDC writer as merge-on-read engines write one: deletes a row by its file and position, or
 * updates it (the same delete plus the new version appended, one commit), validated from the
 * snapshot it read. Position deletes are Parquet files on v2 and deletion vectors on v3 (a new
 * vector replaces the file's old one, merged). The writer's model changes only for commits that
 * landed; a commit refused because compaction replaced the file first is retried on a fresh read.
 */
final class CdcWriter {
  private final Table table;
  private final Random random;
  private final Map<Long, Record> model = new TreeMap<>();
  final AtomicInteger commits = new AtomicInteger();
  final AtomicInteger conflicts = new AtomicInteger();
  private long nextId;

  CdcWriter(Table table, long seed) {
    this.table = table;
    this.random = new Random(seed);
  }

  /** Appends {@code files} files of {@code rows} rows on each of {@code days} days. */
  void seed(int days, int files, int rows) {
    for (int f = 0; f < files; f++) {
      for (int d = 0; d < days; d++) {
        List<Record> batch = Orders.rows(nextId, rows, d);
        // a few rows equal in every value to another: a carried delete may take either, never both
        for (int i = 0; i + 7 < batch.size(); i += 7) {
          batch.get(i + 1).setField("id", batch.get(i).get(0));
          batch.get(i + 1).setField("note", batch.get(i).get(2));
        }
        var append = table.newAppend();
        TableWrites.writeData(table, batch).forEach(append::appendFile);
        append.commit();
        nextId += rows;
        batch.forEach(this::addToModel);
      }
    }
  }

  /** Rows are keyed by id, then by a counter among equal rows (the model is a multiset). */
  private final Map<Long, Integer> copies = new TreeMap<>();

  private void addToModel(Record r) {
    long id = (Long) r.get(0);
    int n = copies.merge(id, 1, Integer::sum);
    model.put(id * 16 + n, r.copy());
  }

  /** One delete or update, retried until it lands. */
  void step() {
    for (int attempt = 0; attempt < 50; attempt++) {
      table.refresh();
      try {
        change(random.nextBoolean());
        commits.incrementAndGet();
        return;
      } catch (CommitFailedException | ValidationException e) {
        conflicts.incrementAndGet();
      }
    }
    throw new AssertionError("writer starved by compaction");
  }

  private void change(boolean update) {
    Snapshot base = table.currentSnapshot();
    List<Record> live = liveWithPositions(base);
    commit(base, live.get(random.nextInt(live.size())), update);
  }

  /** Deletes the row at {@code pos} of {@code file}, once, without retrying. */
  void deleteAt(String file, long pos) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    Record victim = liveWithPositions(base).stream()
        .filter(r -> r.getField(MetadataColumns.FILE_PATH.name()).toString().equals(file)
            && (Long) r.getField(MetadataColumns.ROW_POSITION.name()) == pos)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no live row at " + file + "#" + pos));
    commit(base, victim, false);
    commits.incrementAndGet();
  }

  /** Drops the live rows of {@code file} from the model: the caller removes the file from the table. */
  void forget(String file) {
    table.refresh();
    liveWithPositions(table.currentSnapshot()).stream()
        .filter(r -> r.getField(MetadataColumns.FILE_PATH.name()).toString().equals(file))
        .forEach(this::removeFromModel);
  }

  private List<Record> liveWithPositions(Snapshot base) {
    Schema withPositions = new Schema(List.of(
        Orders.SCHEMA.findField("id"),
        Orders.SCHEMA.findField("day"),
        Orders.SCHEMA.findField("note"),
        MetadataColumns.FILE_PATH,
        MetadataColumns.ROW_POSITION));
    List<Record> live = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
        .useSnapshot(base.snapshotId())
        .project(withPositions)
        .build()) {
      rows.forEach(r -> live.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return live;
  }

  private void commit(Snapshot base, Record victim, boolean update) {
    String file = victim.getField(MetadataColumns.FILE_PATH.name()).toString();
    long pos = (Long) victim.getField(MetadataColumns.ROW_POSITION.name());
    FileScanTask task = taskOf(base, file);
    Record updated = null;
    if (update) {
      updated = org.apache.iceberg.data.GenericRecord.create(Orders.SCHEMA);
      updated.setField("id", victim.get(0));
      updated.setField("day", victim.get(1));
      updated.setField("note", victim.get(2) + "+u");
    }
    TableWrites.commitRowChange(
        table, base, task, pos, updated == null ? List.of() : List.of(updated));
    removeFromModel(victim);
    if (updated != null) {
      addToModel(updated);
    }
  }

  private void removeFromModel(Record victim) {
    long id = (Long) victim.get(0);
    for (var it = model.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Record r = e.getValue();
      if (e.getKey() / 16 == id
          && r.get(1).equals(victim.get(1))
          && r.get(2).toString().equals(victim.get(2).toString())) {
        it.remove();
        return;
      }
    }
    throw new AssertionError("the writer deleted a row its model does not hold: " + victim);
  }

  private FileScanTask taskOf(Snapshot base, String file) {
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask t : tasks) {
        if (t.file().location().equals(file)) {
          return t;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new AssertionError("no task for " + file);
  }

  /** The model's rows, rendered as the table's content is ({@code Content.of}). */
  synchronized List<String> expected() {
    return dev.resurfacer.iceberg.testing.Content.of(
        Orders.SCHEMA, new ArrayList<>(model.values()));
  }

  /**
   * Runs {@link #step} in the background until {@code writing} is false, one step every
   * {@code minMillis} plus up to {@code spreadMillis}, each step holding {@code turn} (a test holds
   * it to read the table and the model at one point).
   */
  java.util.concurrent.CompletableFuture<Void> inBackground(
      java.util.concurrent.locks.ReentrantLock turn,
      java.util.concurrent.atomic.AtomicBoolean writing,
      Random pace,
      int minMillis,
      int spreadMillis) {
    return java.util.concurrent.CompletableFuture.runAsync(() -> {
      while (writing.get()) {
        turn.lock();
        try {
          step();
        } finally {
          turn.unlock();
        }
        try {
          Thread.sleep(minMillis + pace.nextInt(spreadMillis));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    });
  }

  /** A step run once a group's new files are written, before the group is verified and committed. */
  @FunctionalInterface
  interface AfterRewrite {
    void accept(RewriteFileGroup group) throws Exception;
  }

  /** The plan's own runner for each group, then {@code after}: tests land a writer's change inside a rewrite there. */
  static Compaction.RewriterChoice thenRunning(AfterRewrite after) {
    return (t, group, o, ordering) -> {
      GroupRewriter real =
          GroupPlanner.rewriterFor(t, o, DuckDbRewriter.unsupported(t, group, ordering));
      return new GroupRewriter() {
        @Override
        public String name() {
          return real.name();
        }

        @Override
        public List<org.apache.iceberg.DataFile> rewrite(
            Table tt, RewriteFileGroup g, Settings settings) throws Exception {
          List<org.apache.iceberg.DataFile> out = real.rewrite(tt, g, settings);
          after.accept(g);
          return out;
        }
      };
    };
  }
}
