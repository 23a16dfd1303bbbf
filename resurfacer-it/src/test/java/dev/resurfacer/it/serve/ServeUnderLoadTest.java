package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code serve} processes (the runnable jar, sharing one run history) keep three tables healthy
 * while a writer streams small appends and equality deletes into them: after a warm-up the
 * small-file count stays under the bound, the writer's model of the rows always equals the table,
 * and the history shows no table maintained by both processes at once. {@code /metrics} must parse
 * as strict Prometheus text and agree with the tables.
 */
class ServeUnderLoadTest {
  static final List<String> TABLES = List.of("raw.t0", "raw.t1", "raw.t2");
  static final int SMALL_FILES_TRIGGER = 8;
  /**
   * The trigger plus what the writer adds to a table while serve notices (interval 1 s), waits out
   * min-interval (2 s) and compacts (a few seconds), at its rate of at most four commits a second
   * over three tables.
   */
  static final int SMALL_FILES_BOUND = 3 * SMALL_FILES_TRIGGER;
  /** At least this many commits, about 20 per table: each table passes the trigger twice or more. */
  static final int COMMITS = 60;
  /** Samples of each table's data files after serve first maintained it, before the writer may stop. */
  static final int SAMPLES_AFTER_WARM_UP = 4;
  /**
   * The writer's pace between commits: its rate, not a wait for anything. The bound above assumes
   * it; at 100 ms a run at load average 39 on 2 cores came within one file of the bound.
   */
  static final long PACE_MS = 250;
  /** Only so that a broken serve fails the test instead of hanging it; a healthy run ends on its conditions long before. */
  static final long SAFETY_LIMIT_MS = 300_000;

  @TempDir
  Path dir;

  /*
   * It found the equality-delete race that EqualityDeleteRaceTest reproduces without serve, fixed by
   * NewDeletesFence (docs/safety.md, compact fence 7). Every wait is on a condition (serve listening,
   * a table maintained, an evaluation after the writer stopped), so a slow machine makes it longer,
   * not flaky.
   */
  @Test
  void twoServersKeepStreamingTablesCompactAndLoseNothing() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      for (String t : TABLES) {
        Table table = Orders.create(catalog, "raw", t.substring(4), 2);
        // three processes commit to these tables: the writer, and two serves' leases and
        // compactions
        table
            .updateProperties()
            .set("commit.retry.num-retries", "40")
            .set("commit.retry.min-wait-ms", "10")
            .set("commit.retry.max-wait-ms", "300")
            .commit();
      }
      Files.writeString(dir.resolve("resurfacer.yml"), """
          catalogs:
            lake: {type: jdbc, uri: "%s", warehouse: "%s"}
          defaults:
            compact: {min-input-files: 2}
            expire: {older-than: 20s, retain-last: 10}
            remove-orphans: {enabled: false}
            triggers: {small-files: %d, delete-files: 6}
          serve: {interval: 1s, concurrency: 2, min-interval: 2s, backoff: 1s, max-backoff: 4s, lease: 10m, port: 0, history: history.db}
          """.formatted(
              SqliteCatalogs.uri(lake), SqliteCatalogs.warehouse(lake), SMALL_FILES_TRIGGER));

      StreamingWriter writer = new StreamingWriter(catalog, TABLES, 20261130L);
      Map<String, Integer> maxSmall = new LinkedHashMap<>();
      Map<String, Integer> samplesAfterWarmUp = new LinkedHashMap<>();
      int modelChecks = 0;
      long aPid;
      long bPid;
      List<ServeProcess> serves = ServeProcess.startAll(dir, List.of("a", "b"), "--yes");
      try (ServeProcess a = serves.get(0);
          ServeProcess b = serves.get(1)) {
        aPid = a.pid();
        bPid = b.pid();
        long limit = System.currentTimeMillis() + SAFETY_LIMIT_MS;
        Path db = dir.resolve("history.db");
        Set<String> warm = new HashSet<>();
        // write until enough commits are in and every table was sampled often enough after serve
        // first maintained it
        while (writer.commits < COMMITS
            || !samplesAfterWarmUp.values().stream().allMatch(n -> n >= SAMPLES_AFTER_WARM_UP)
            || samplesAfterWarmUp.size() < TABLES.size()) {
          assertThat(System.currentTimeMillis())
              .as(
                  "serve maintained every table within %d s of writing (%d commits, warm %s)",
                  SAFETY_LIMIT_MS / 1000, writer.commits, warm)
              .isLessThan(limit);
          writer.step();
          if (writer.commits % 3 == 0) {
            History h = History.read(db);
            for (String t : TABLES) {
              // a table is warm once serve has maintained it: from then on its small files stay
              // under the bound
              if (warm.contains(t)
                  || h.rows().stream()
                      .anyMatch(r -> r.table().equals("lake." + t) && r.status().equals("done"))) {
                warm.add(t);
                maxSmall.merge(t, dataFiles(catalog, t), Math::max);
                samplesAfterWarmUp.merge(t, 1, Integer::sum);
              }
            }
          }
          if (writer.commits % 20 == 0) {
            for (String t : TABLES) {
              assertThat(writer.actual(t))
                  .as("%s after %d commits", t, writer.commits)
                  .isEqualTo(writer.expected(t));
              modelChecks++;
            }
          }
          Thread.sleep(PACE_MS);
        }
        for (String t : TABLES) {
          assertThat(writer.actual(t))
              .as("%s after the writer stopped", t)
              .isEqualTo(writer.expected(t));
        }
        assertThat(maxSmall)
            .as("small files per table after warm-up (max of samples every third commit)")
            .allSatisfy((t, n) -> assertThat(n).as(t).isLessThanOrEqualTo(SMALL_FILES_BOUND));

        metricsAgreeWithTheTables(a, catalog);
        assertThat(a.terminate()).as("SIGTERM: %s", a.err()).isEqualTo(143);
        assertThat(b.terminate()).as("SIGTERM: %s", b.err()).isEqualTo(143);
        // Iceberg's own commit retries log their CommitFailedException; nothing may escape a thread
        // or stop evaluation
        assertThat(a.err() + b.err())
            .doesNotContain("Exception in thread")
            .doesNotContain("operation=evaluate outcome=failed");
      }
      for (String t : TABLES) {
        assertThat(writer.actual(t))
            .as("%s after both serves stopped", t)
            .isEqualTo(writer.expected(t));
      }
      System.out.printf(
          "serve under load: %d commits (%d deletes), %d model checks, max small files after warm-up %s%n",
          writer.commits, writer.deletes, modelChecks, maxSmall);

      History history = History.read(dir.resolve("history.db"));
      assertThat(history.withStatus("running"))
          .as("runs left running after a graceful stop")
          .isEmpty();
      assertThat(history.withStatus("done"))
          .as("runs that changed a table")
          .hasSizeGreaterThanOrEqualTo(TABLES.size());
      assertThat(history.rows()).extracting(History.Row::pid).allMatch(p -> p == aPid || p == bPid);
      neverTwoAtOnce(history);
    }
  }

  /** Per table, the runs that got past the lease (every status but skipped) never overlap in time. */
  static void neverTwoAtOnce(History history) {
    Map<String, List<History.Row>> byTable = history.rows().stream()
        .filter(r -> !r.status().equals("skipped"))
        .collect(Collectors.groupingBy(History.Row::table));
    byTable.forEach((table, runs) -> {
      List<History.Row> sorted = new ArrayList<>(runs);
      sorted.sort(Comparator.comparingLong(History.Row::startedAt));
      for (int i = 1; i < sorted.size(); i++) {
        History.Row prev = sorted.get(i - 1);
        History.Row next = sorted.get(i);
        assertThat(prev.finishedAt()).as("run %d finished", prev.id()).isNotNull();
        assertThat(next.startedAt())
            .as(
                "%s: run %d (pid %d) started before run %d (pid %d) ended",
                table, next.id(), next.pid(), prev.id(), prev.pid())
            .isGreaterThanOrEqualTo(prev.finishedAt());
      }
    });
  }

  private static void metricsAgreeWithTheTables(ServeProcess serve, Catalog catalog)
      throws Exception {
    // the writer stopped: wait until an evaluation that began after it has finished, i.e. a second
    // one
    // began (evaluations run one after another, at least the 1 s interval apart; the gauge has
    // whole seconds)
    long stopped = java.time.Instant.now().getEpochSecond();
    Set<Double> evaluationsSince = new HashSet<>();
    long limit = System.currentTimeMillis() + 120_000;
    var response = serve.get("/metrics");
    while (true) {
      double last = PrometheusText.parse(response.body())
          .value("resurfacer_serve_last_evaluation_timestamp_seconds", Map.of());
      if (last > stopped) {
        evaluationsSince.add(last);
      }
      if (evaluationsSince.size() >= 2) {
        break;
      }
      assertThat(System.currentTimeMillis())
          .as("two evaluations after the writer stopped")
          .isLessThan(limit);
      Thread.sleep(200);
      response = serve.get("/metrics");
    }
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
    PrometheusText metrics = PrometheusText.parse(response.body());
    assertThat(metrics.types)
        .containsEntry("resurfacer_serve_runs_total", "counter")
        .containsEntry("resurfacer_serve_table_health_score", "gauge");
    History history = History.read(serve.stdout.getParent().resolve("history.db"));
    for (String t : TABLES) {
      Map<String, String> labels = PrometheusText.table("lake", t);
      int files = dataFiles(catalog, t);
      double gauge = metrics.value("resurfacer_serve_table_data_files", labels);
      // a run may have committed between the evaluation and this read: the gauge is one of the two
      assertThat(gauge).as("%s data files", t).isBetween(1.0, (double)
          Math.max(files, SMALL_FILES_BOUND + 1));
      double score = metrics.value("resurfacer_serve_table_health_score", labels);
      assertThat(score).isBetween(0.0, 100.0);
      double runs = metrics.all("resurfacer_serve_runs_total").stream()
          .filter(s -> s.labels().get("table").equals(t))
          .mapToDouble(PrometheusText.Sample::value)
          .sum();
      long inHistory =
          history.rows().stream().filter(r -> r.table().equals("lake." + t)).count();
      assertThat(runs)
          .as("%s runs in /metrics and in the history", t)
          .isBetween((double) inHistory - 2, (double) inHistory + 2);
      assertThat(metrics.value("resurfacer_serve_reclaimed_files_total", labels))
          .as("%s files reclaimed", t)
          .isPositive();
    }
  }

  static int dataFiles(Catalog catalog, String table) throws Exception {
    Table t = catalog.loadTable(TableIdentifier.parse(table));
    int n = 0;
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask ignored : tasks) {
        n++;
      }
    }
    return n;
  }
}
