package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.maintain.DeltaResurfacer;
import dev.resurfacer.delta.scan.LogicalRows;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --yes} beside a Delta CDC writer: a small-files trigger keeps firing while delta-spark
 * runs a {@code DELETE}, {@code UPDATE} or {@code MERGE} (deletion vectors) on both partitions about
 * every second (its session set up for small statements, 0.3–0.7 s apart). Every run the service starts ends done, every bin commits (a writer's vectors on its
 * inputs carried onto the new files), and after each run the table, read by Delta Kernel, equals the
 * writer's model of its rows; at the end delta-spark reads the same rows.
 */
class ServeBesideADeltaCdcWriterTest {
  @TempDir
  Path dir;

  @Test
  void everyTriggeredCompactionCommitsBesideTheWriterAndTheTableEqualsItsModel() throws Exception {
    besideTheWriter(30_000, 4);
  }

  @Tag("nightly")
  @Test
  void fiveMinutesBesideTheWriter() throws Exception {
    besideTheWriter(300_000, Integer.MAX_VALUE);
  }

  private void besideTheWriter(long millis, int maxRuns) throws Exception {
    Path root = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    DeltaTable table = DeltaTables.open("raw.events", root.toString(), dir);
    Writer writer = new Writer(root, Model.of(table), new Random(43));
    assertThat(writer.model.rows()).isEqualTo(DeltaSpark.rows(root)).isNotEmpty();

    ResurfacerConfig config =
        ConfigFile.parse("""
        defaults:
          compact: {min-input-files: 2}
          triggers: {small-files: 3}
        serve: {min-interval: 0s}
        """, "resurfacer.yml", new dev.resurfacer.config.Secrets(Map.of()));
    CatalogConfig catalog = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of("raw.events", root.toString()));
    ServedCatalog<?> served = ServedCatalog.of(DeltaResurfacer.connect(catalog, dir));
    RunHistory history = RunHistory.open(dir.resolve("history.db").toString(), null, null);

    ReentrantLock turn = new ReentrantLock();
    AtomicBoolean writing = new AtomicBoolean(true);
    CompletableFuture<Void> writes = writer.inBackground(turn, writing, new Random(7), 300, 400);

    List<HistoryRun> runs = new ArrayList<>();
    long compactedRuns = 0;
    long started = System.currentTimeMillis();
    Random phase = new Random(11);
    try (MaintenanceService service = new MaintenanceService(
        List.of(served), config.policies(), config.serve(), history, Clock.systemUTC(), true)) {
      long end = System.currentTimeMillis() + millis;
      // on a loaded machine a delta-spark statement takes seconds: past the time, on until two runs
      // compacted and the writer committed more often than the service ran, within a hard limit
      long limit = end + 3 * millis;
      while (!writes.isDone()
          && runs.size() < maxRuns
          && System.currentTimeMillis() < limit
          && (System.currentTimeMillis() < end
              || compactedRuns < 2
              || writer.commits.get() <= runs.size())) {
        int before = service.history().all().size();
        service.evaluate();
        if (service.history().all().size() == before) {
          ServiceRuns.sleep(
              300); // nothing fired yet: the writer's updates and merges add the small files the
          // trigger counts
          continue;
        }
        HistoryRun run = ServiceRuns.finished(service);
        runs.add(run);
        OperationResult compact = ServiceRuns.doneCompaction(run);
        compactedRuns += compact.outcome() == Outcome.DONE ? 1 : 0;
        turn.lock();
        try {
          assertThat(Model.of(table).rows())
              .as("the table after run %s", run.id())
              .isEqualTo(writer.model.rows());
        } finally {
          turn.unlock();
        }
        // the check waited for the writer's statement to end: without a pause of its own each run
        // would start just after a writer commit and end before the next, and never carry a vector
        ServiceRuns.sleep(phase.nextInt(3000));
      }
    } finally {
      writing.set(false);
      writes.get();
    }
    assertThat(Model.of(table).rows()).isEqualTo(writer.model.rows());
    assertThat(DeltaSpark.rows(root))
        .as("delta-spark reads the writer's rows")
        .isEqualTo(writer.model.rows());
    assertThat(compactedRuns).as("runs that compacted").isGreaterThanOrEqualTo(2);
    assertThat(writer.commits.get()).isGreaterThan(runs.size());

    long ours = 0;
    long carrying = 0;
    for (long v = 0; v <= LogEntries.latestVersion(root); v++) {
      List<JsonNode> actions = LogEntries.actions(root, v);
      boolean optimize = actions.stream()
          .anyMatch(a -> a.has("commitInfo")
              && "OPTIMIZE".equals(a.get("commitInfo").path("operation").asText())
              && a.get("commitInfo")
                  .path("engineInfo")
                  .asText()
                  .contains(DeltaCompactor.ENGINE_INFO));
      if (optimize) {
        ours++;
        carrying +=
            LogEntries.adds(root, v).stream().anyMatch(a -> a.has("deletionVector")) ? 1 : 0;
      }
    }
    assertThat(ours).as("bins committed").isGreaterThanOrEqualTo(compactedRuns);
    System.out.printf(
        "serve beside a delta cdc writer: %d runs (%d compacted), %d bins committed (%d carrying the writer's deletion"
            + " vectors), %d writer commits, %d writer retries, %d s%n",
        runs.size(),
        compactedRuns,
        ours,
        carrying,
        writer.commits.get(),
        writer.conflicts.get(),
        (System.currentTimeMillis() - started) / 1000);
  }

  /** The table's live rows by id, rendered as delta-spark renders a row ({@code [id,part,v]}). */
  private record Model(Map<Long, String[]> byId) {
    static Model of(DeltaTable table) {
      Map<Long, String[]> rows = new TreeMap<>();
      LogicalRows.forEach(table, table.latest(), r -> {
        String[] previous = rows.put(r.getLong(0), new String[] {r.getString(1), r.getString(2)});
        assertThat(previous).as("id %d twice", r.getLong(0)).isNull();
      });
      return new Model(rows);
    }

    List<String> rows() {
      return byId.entrySet().stream()
          .map(e -> "[" + e.getKey() + "," + e.getValue()[0] + "," + e.getValue()[1] + "]")
          .sorted()
          .toList();
    }
  }

  /**
   * A CDC job on delta-spark: each statement deletes or changes rows of both partitions (the MERGE
   * also inserts ids that are gone), and is retried when it loses to a concurrent commit (our
   * compaction's). The model changes, as the statement would, only once it committed.
   */
  private static final class Writer {
    private final Path root;
    private final Model model;
    private final Random random;
    private final org.apache.spark.sql.SparkSession session = DeltaSpark.cdcWriterSession();
    final AtomicInteger commits = new AtomicInteger();
    final AtomicInteger conflicts = new AtomicInteger();

    Writer(Path root, Model model, Random random) {
      this.root = root;
      this.model = model;
      this.random = random;
    }

    void step(int k) {
      int kind = random.nextInt(3);
      int r = random.nextInt(97);
      String t = DeltaSpark.table(root);
      String statement = switch (kind) {
        case 0 -> "DELETE FROM " + t + " WHERE id % 97 = " + r;
        case 1 -> "UPDATE " + t + " SET v = concat(v, '-u" + k + "') WHERE id % 31 = " + (r % 31);
        default ->
          "MERGE INTO " + t + " t USING (SELECT id FROM range(0, 700) WHERE id % 37 = " + (r % 37)
              + ") s ON t.id = s.id"
              + " WHEN MATCHED AND t.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = concat(t.v, '-m"
              + k + "')"
              + " WHEN NOT MATCHED THEN INSERT (id, part, v) VALUES (s.id, CASE WHEN s.id % 2 = 0 THEN 'a b' ELSE 'x%y' END,"
              + " concat('i', s.id))";
      };
      for (int attempt = 0; attempt < 20; attempt++) {
        try {
          session.sql(statement).collect();
        } catch (RuntimeException conflict) {
          assertThat(conflict.getClass().getName() + conflict.getMessage())
              .as(statement)
              .containsIgnoringCase("concurrent");
          conflicts.incrementAndGet();
          continue;
        }
        apply(kind, r, k);
        commits.incrementAndGet();
        return;
      }
      throw new AssertionError("writer starved by compaction: " + statement);
    }

    private void apply(int kind, int r, int k) {
      Map<Long, String[]> rows = model.byId();
      switch (kind) {
        case 0 -> rows.keySet().removeIf(id -> id % 97 == r);
        case 1 ->
          rows.forEach((id, row) -> {
            if (id % 31 == r % 31) {
              row[1] = row[1] + "-u" + k;
            }
          });
        default -> {
          for (long id = r % 37; id < 700; id += 37) {
            String[] row = rows.get(id);
            if (row == null) {
              rows.put(id, new String[] {id % 2 == 0 ? "a b" : "x%y", "i" + id});
            } else if (id % 2 == 0) {
              rows.remove(id);
            } else {
              row[1] = row[1] + "-m" + k;
            }
          }
        }
      }
    }

    /** {@link #step} until {@code writing} is false, one every {@code minMillis} plus up to {@code spreadMillis}, each holding {@code turn}. */
    CompletableFuture<Void> inBackground(
        ReentrantLock turn, AtomicBoolean writing, Random pace, int minMillis, int spreadMillis) {
      return CompletableFuture.runAsync(() -> {
        for (int k = 0; writing.get(); k++) {
          turn.lock();
          try {
            step(k);
          } finally {
            turn.unlock();
          }
          ServiceRuns.sleep(minMillis + pace.nextInt(spreadMillis));
        }
      });
    }
  }
}
