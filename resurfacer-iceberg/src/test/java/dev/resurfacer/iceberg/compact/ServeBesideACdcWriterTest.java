package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.serve.HistoryRun;
import dev.resurfacer.serve.MaintenanceService;
import dev.resurfacer.serve.RunHistory;
import dev.resurfacer.serve.ServedCatalog;
import dev.resurfacer.serve.testing.ServiceRuns;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code serve --yes} beside a CDC writer: a small-files trigger keeps firing while a merge-on-read
 * writer commits a row-level delete or update about every second (position-delete files on v2,
 * deletion vectors on v3). Every compaction the service runs commits every group (the writer's
 * deletes on its inputs carried onto the new files) and the table, read by Iceberg's own generic
 * reader, always equals the writer's model of its rows.
 */
class ServeBesideACdcWriterTest {
  static final TableIdentifier ID = TableIdentifier.of("shop", "orders");

  @TempDir
  Path dir;

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void everyTriggeredCompactionCommitsBesideTheWriterAndTheTableEqualsItsModel(int version)
      throws Exception {
    besideTheWriter(version, 25_000, 6);
  }

  @Tag("nightly")
  @ParameterizedTest(name = "format v{0}, 5 minutes")
  @ValueSource(ints = {2, 3})
  void fiveMinutesBesideTheWriter(int version) throws Exception {
    besideTheWriter(version, 300_000, Integer.MAX_VALUE);
  }

  private void besideTheWriter(int version, long millis, int maxRuns) throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Orders.create(catalog, "shop", "orders", version);
    Table table = catalog.loadTable(ID);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 41L + version);
    writer.seed(3, 3, 30);

    ResurfacerConfig config =
        ConfigFile.parse("""
        defaults:
          compact: {min-input-files: 2, rewrite-all: true}
          triggers: {small-files: 3}
        serve: {min-interval: 0s}
        """, "resurfacer.yml", new dev.resurfacer.config.Secrets(Map.of()));
    ServedCatalog<?> served = ServedCatalog.of(
        IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake"))));
    RunHistory history = RunHistory.open(dir.resolve("history.db").toString(), null, null);

    ReentrantLock turn = new ReentrantLock();
    AtomicBoolean writing = new AtomicBoolean(true);
    Random pace = new Random(version);
    CompletableFuture<Void> writes = writer.inBackground(turn, writing, pace, 700, 600);

    List<HistoryRun> runs = new ArrayList<>();
    long carrying = 0;
    long compactedRuns = 0;
    try (MaintenanceService service = new MaintenanceService(
        List.of(served), config.policies(), config.serve(), history, Clock.systemUTC(), true)) {
      long end = System.currentTimeMillis() + millis;
      while (System.currentTimeMillis() < end && runs.size() < maxRuns) {
        int before = service.history().all().size();
        service.evaluate();
        if (service.history().all().size() == before) {
          ServiceRuns.sleep(
              300); // nothing fired yet: the writer's updates add the small files the trigger
          // counts
          continue;
        }
        HistoryRun run = ServiceRuns.finished(service);
        runs.add(run);
        OperationResult compact = ServiceRuns.doneCompaction(run);
        carrying += compact.metrics().getOrDefault("groups_carrying_concurrent_deletes", 0L);
        compactedRuns += compact.outcome() == Outcome.DONE ? 1 : 0;
        turn.lock();
        try {
          assertThat(Content.of(table))
              .as("the table after run %s", run.id())
              .isEqualTo(writer.expected());
        } finally {
          turn.unlock();
        }
      }
    } finally {
      writing.set(false);
      writes.get();
    }
    assertThat(Content.of(table)).isEqualTo(writer.expected());
    Invariants.nothingMissing(table);
    assertThat(compactedRuns).as("runs that compacted").isGreaterThanOrEqualTo(2);
    assertThat(writer.commits.get()).isGreaterThan(runs.size());
    System.out.printf(
        "serve beside a cdc writer v%d: %d runs (%d compacted, %d with groups carrying concurrent deletes),"
            + " %d writer commits, %d writer retries%n",
        version,
        runs.size(),
        compactedRuns,
        carrying,
        writer.commits.get(),
        writer.conflicts.get());
    catalog.close();
  }
}
