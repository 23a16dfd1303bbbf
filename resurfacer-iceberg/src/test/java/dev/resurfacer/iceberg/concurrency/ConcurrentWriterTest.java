package dev.resurfacer.iceberg.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer appends, updates (equality delete + new row) and deletes rows (position and equality
 * deletes) in a loop while maintenance (compact, remove dangling deletes, rewrite manifests,
 * expire, remove orphans) runs over and over on the same table. The writer keeps its own model of
 * what should be there and changes it only for commits that succeeded; the table must equal the
 * model at every check — nothing lost, nothing resurrected, nothing duplicated. Rounds:
 * -Dreliability.rounds (12 by default, 200 with -Plong).
 */
class ConcurrentWriterTest {
  static final int ROUNDS = Integer.getInteger("reliability.rounds", 12);
  static final TableIdentifier ID = TableIdentifier.of("shop", "orders");
  static final Schema ID_ONLY = Orders.SCHEMA.select("id");

  @TempDir
  Path dir;

  @Test
  void rowsEqualTheWritersModelWhileMaintenanceRuns() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 2);
    Map<Long, Record> model = new TreeMap<>();
    Random random = new Random(20261129L);
    long[] nextId = {0};
    for (int i = 0; i < 6; i++) {
      append(table, model, nextId, random);
    }

    MaintenancePlan plan = MaintenancePlan.of(Maintain.table(ID.toString())
        .compact(Map.of("min-input-files", "2", "rewrite-all", "true"))
        .removeDanglingDeletes()
        .rewriteManifests()
        .expireSnapshots(Duration.ZERO, 1)
        .removeOrphans(Duration.ofHours(1)));
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger maintenanceRuns = new AtomicInteger();
    AtomicInteger compactions = new AtomicInteger();
    var resurfacer = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")));
    CompletableFuture<Void> maintenance = CompletableFuture.runAsync(() -> {
      while (writing.get()) {
        var report = resurfacer.run(plan, Mode.COMMIT);
        maintenanceRuns.incrementAndGet();
        report
            .tables()
            .forEach(t -> t.operations().stream()
                .filter(o -> o.operation().equals("compact")
                    && o.outcome() == dev.resurfacer.report.Outcome.DONE)
                .forEach(o -> compactions.incrementAndGet()));
      }
    });

    int committed = 0;
    int conflicts = 0;
    int checks = 0;
    Table writer = catalog.loadTable(ID);
    for (int round = 0; round < ROUNDS; round++) {
      for (int attempt = 0; ; attempt++) {
        writer.refresh();
        try {
          switch (random.nextInt(4)) {
            case 0 -> append(writer, model, nextId, random);
            case 1 -> positionDelete(writer, model, random);
            case 2 -> equalityDelete(writer, model, random);
            default -> update(writer, model, random);
          }
          committed++;
          break;
        } catch (CommitFailedException
            | ValidationException
            | NotFoundException
            | IllegalArgumentException e) {
          // maintenance won the race (a rewritten or expired file, or expiry removed the snapshot
          // our
          // validation starts from: "is not an ancestor"); nothing of ours was committed
          if (e instanceof IllegalArgumentException
              && !String.valueOf(e.getMessage()).contains("is not an ancestor")) {
            throw e;
          }
          conflicts++;
          assertThat(attempt).as("writer starved").isLessThan(50);
        }
      }
      writer.refresh();
      assertThat(Rows.sortedStrings(writer))
          .as("rows after round %d", round)
          .isEqualTo(expected(model));
      checks++;
      Thread.sleep(random.nextInt(400));
    }
    writing.set(false);
    maintenance.get();
    resurfacer.run(plan, Mode.COMMIT);
    resurfacer.close();

    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(expected(model));
    Invariants.nothingMissing(table);
    assertThat(compactions.get())
        .as("compactions committed while the writer ran")
        .isPositive();
    System.out.printf(
        "concurrency: %d writer rounds (%d commits, %d conflicts retried), %d maintenance runs (%d compactions committed), %d model checks, %d rows%n",
        ROUNDS,
        committed,
        conflicts,
        maintenanceRuns.get(),
        compactions.get(),
        checks + 1,
        model.size());
    catalog.close();
  }

  private static List<String> expected(Map<Long, Record> model) {
    List<String> out = new ArrayList<>();
    for (Record r : model.values()) {
      out.add(r.get(0) + "|" + r.get(1) + "|" + r.get(2) + "|");
    }
    out.sort(null);
    return out;
  }

  private static void append(Table table, Map<Long, Record> model, long[] nextId, Random random) {
    List<Record> rows = Orders.rows(nextId[0], 3 + random.nextInt(5), random.nextInt(3));
    var appendOp = table.newAppend();
    TableWrites.writeData(table, rows).forEach(appendOp::appendFile);
    appendOp.commit();
    nextId[0] += rows.size();
    rows.forEach(r -> model.put((Long) r.get(0), r));
  }

  /** Deletes one live row by its file and position, validated like an engine's merge-on-read delete. */
  private static void positionDelete(Table table, Map<Long, Record> model, Random random) {
    Snapshot base = table.currentSnapshot();
    List<Record> live = liveWithPositions(table, base);
    if (live.isEmpty()) {
      return;
    }
    Record victim = live.get(random.nextInt(live.size()));
    String file = victim.getField(MetadataColumns.FILE_PATH.name()).toString();
    long pos = (Long) victim.getField(MetadataColumns.ROW_POSITION.name());
    PartitionKey key = partition(table, victim);
    DeleteFile delete = TableWrites.writePositionDeletes(
        table, table.spec(), key, List.of(new Position(file, pos)));
    table
        .newRowDelta()
        .addDeletes(delete)
        .validateFromSnapshot(base.snapshotId())
        .validateDataFilesExist(List.of(file))
        .validateDeletedFiles()
        .validateNoConflictingDeleteFiles()
        .commit();
    model.remove((Long) victim.getField("id"));
  }

  private static void equalityDelete(Table table, Map<Long, Record> model, Random random) {
    if (model.isEmpty()) {
      return;
    }
    Record victim = new ArrayList<>(model.values()).get(random.nextInt(model.size()));
    table.newRowDelta().addDeletes(equalityDeleteOf(table, victim)).commit();
    model.remove((Long) victim.get(0));
  }

  /** An update as a merge-on-read engine writes it: an equality delete of the key plus the new row, one commit. */
  private static void update(Table table, Map<Long, Record> model, Random random) {
    if (model.isEmpty()) {
      return;
    }
    Record old = new ArrayList<>(model.values()).get(random.nextInt(model.size()));
    Record updated = old.copy();
    updated.setField("note", old.get(2) + "+u");
    RowDelta delta = table.newRowDelta().addDeletes(equalityDeleteOf(table, old));
    TableWrites.writeData(table, List.of(updated)).forEach(delta::addRows);
    delta.commit();
    model.put((Long) old.get(0), updated);
  }

  private static DeleteFile equalityDeleteOf(Table table, Record row) {
    Record key = GenericRecord.create(ID_ONLY);
    key.setField("id", row.get(0));
    return TableWrites.writeEqualityDeletes(
        table, table.spec(), partition(table, row), ID_ONLY, List.of(key));
  }

  private static PartitionKey partition(Table table, Record row) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key;
  }

  private static List<Record> liveWithPositions(Table table, Snapshot base) {
    Schema withPositions = new Schema(List.of(
        Orders.SCHEMA.findField("id"),
        Orders.SCHEMA.findField("day"),
        Orders.SCHEMA.findField("note"),
        MetadataColumns.FILE_PATH,
        MetadataColumns.ROW_POSITION));
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
        .useSnapshot(base.snapshotId())
        .project(withPositions)
        .build()) {
      rows.forEach(r -> out.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
