package dev.resurfacer.iceberg.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.serve.HistoryRun;
import dev.resurfacer.serve.MaintenanceService;
import dev.resurfacer.serve.RunHistory;
import dev.resurfacer.serve.ServedCatalog;
import dev.resurfacer.serve.TableState;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's scheduler over a real SQLite catalog: which runs a trigger starts, and what they run. */
class ServeTriggersTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;
  MaintenanceService service;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (service != null) {
      service.close();
    }
    catalog.close();
  }

  private MaintenanceService serve(String yaml) {
    ResurfacerConfig config =
        ConfigFile.parse(yaml, "resurfacer.yml", new dev.resurfacer.config.Secrets(Map.of()));
    ServedCatalog<?> served = ServedCatalog.of(
        IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake"))));
    RunHistory history = RunHistory.open(dir.resolve("history.db").toString(), null, null);
    service = new MaintenanceService(
        List.of(served), config.policies(), config.serve(), history, Clock.systemUTC(), true);
    return service;
  }

  /** Waits for the run the last evaluation started to finish (the workers run it on their own thread). */
  private static HistoryRun finished(MaintenanceService s) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      List<HistoryRun> runs = s.history().recent(10);
      if (!runs.isEmpty() && !HistoryRun.RUNNING.equals(runs.get(0).status())) {
        return runs.get(0);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the run did not finish");
  }

  @Test
  void aSmallFilesTriggerDoesNotFireWhilePartitionsHoldOneFileEachAndFiresOnceOneHoldsEnough()
      throws Exception {
    Table table = Orders.create(catalog, "db", "events", 2);
    for (int day = 0; day < 6; day++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(day * 10L, 5, day)).forEach(append::appendFile);
      append.commit();
    }
    MaintenanceService s = serve("""
        defaults:
          compact: {min-input-files: 4}
          triggers: {small-files: 4}
        serve: {min-interval: 0s}
        """);
    for (int i = 0; i < 3; i++) {
      s.evaluate();
    }
    // six small files, one per partition: compaction has nothing to merge, so nothing fires
    TableState state = s.tables().get(0);
    assertThat(state.signals().dataFiles()).isEqualTo(6);
    assertThat(state.signals().smallDataFiles()).isZero();
    assertThat(state.assessment().fired()).isEmpty();
    assertThat(s.history().all()).isEmpty();

    // three more on day 0 make four there: a compaction would rewrite them, so the trigger fires
    for (int i = 0; i < 3; i++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(100L + i * 10, 5, 0)).forEach(append::appendFile);
      append.commit();
    }
    List<String> before = Rows.sortedStrings(table);
    s.evaluate();
    HistoryRun run = finished(s);
    assertThat(run.trigger()).isEqualTo("small-files 4 >= 4");
    assertThat(run.status()).isEqualTo("done");
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().summary().get("total-data-files")).isEqualTo("6");
  }

  @Test
  void aRunFiredBySmallFilesCompactsAndLeavesExpiryToItsOwnTrigger() throws Exception {
    Table table = Fleet.smallFiles(catalog, "db", "events", 8);
    List<String> rows = Rows.sortedStrings(table);
    MaintenanceService s = serve("""
        defaults:
          compact: {min-input-files: 2}
          expire: {older-than: 0s, retain-last: 1}
          remove-orphans: {enabled: true}
          triggers: {small-files: 5, snapshots: 12}
        serve: {min-interval: 0s}
        """);
    s.evaluate();
    HistoryRun first = finished(s);
    assertThat(first.trigger()).isEqualTo("small-files 8 >= 5");
    // compaction and the other layout steps only: expiry and the orphan listing wait for their own
    // triggers
    assertThat(first.operations())
        .containsExactly("compact", "remove-dangling-deletes", "rewrite-manifests");
    assertThat(
            first.report().operations().stream().map(OperationResult::operation).toList())
        .containsExactly("compact", "remove-dangling-deletes", "rewrite-manifests");
    table.refresh();
    assertThat(table.currentSnapshot().summary().get("total-data-files")).isEqualTo("1");
    int snapshots = size(table.snapshots());
    assertThat(snapshots).isGreaterThanOrEqualTo(9); // the 8 appends are all kept
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);

    // more commits: the snapshot count reaches its trigger, and that run expires (and compacts
    // nothing)
    for (int i = 0; i < 12 - snapshots; i++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(1000L + i, 1, 3 + i)).forEach(append::appendFile);
      append.commit();
    }
    List<String> later = Rows.sortedStrings(table);
    s.evaluate();
    HistoryRun second = finished(s);
    assertThat(second.id()).isNotEqualTo(first.id());
    assertThat(second.trigger()).startsWith("snapshots 12 >= 12");
    assertThat(second.operations()).contains("expire").doesNotContain("compact", "remove-orphans");
    assertThat(second.report().operations().stream()
            .map(OperationResult::operation)
            .toList())
        .containsExactly("expire");
    table.refresh();
    assertThat(size(table.snapshots())).isEqualTo(1);
    assertThat(Rows.sortedStrings(table)).isEqualTo(later);
  }

  @Test
  void everyTableIsListedBeforeAnyIsRead() {
    for (int i = 0; i < 3; i++) {
      Orders.create(catalog, "db", "t" + i, 2);
    }
    MaintenanceService s = serve("defaults:\n  triggers: {small-files: 5}\n");
    assertThat(s.tables()).isEmpty();
    s.register();
    assertThat(s.tables())
        .extracting(TableState::qualified)
        .containsExactly("lake.db.t0", "lake.db.t1", "lake.db.t2");
    assertThat(s.tables()).allSatisfy(t -> {
      assertThat(t.assessment()).isNull();
      assertThat(t.state(s.now())).isEqualTo("waiting");
    });
    assertThat(catalog.loadTable(TableIdentifier.of("db", "t0")).currentSnapshot())
        .isNull();
  }

  private static int size(Iterable<Snapshot> snapshots) {
    int n = 0;
    for (Snapshot ignored : snapshots) {
      n++;
    }
    return n;
  }
}
