package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of {@code serve} while it compacts, then a restart: the table keeps its rows and every
 * referenced file, the history shows the killed run as interrupted, and the restarted serve
 * maintains the table once the dead run's lease lapses. Then the dashboard, read by headless
 * Chromium, and {@code /metrics}, read by a strict parser, show the real numbers; pause and resume
 * work through their form posts.
 */
class ServeCrashAndDashboardTest {
  private static final int BEFORE_BARS = 0x8250df;
  private static final int AFTER_BARS = 0x1a7f37;
  private static final TableIdentifier ID = TableIdentifier.of("raw", "big");

  @TempDir
  Path dir;

  @Test
  void aKilledRunIsInterruptedAndTheDashboardShowsRealNumbers() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Table table = Fleet.smallFiles(catalog, "raw", "big", 60);
      TableState before = TableState.capture(table);
      List<String> content = Content.of(table);
      writeConfig(
          lake,
          "{interval: 1s, min-interval: 0s, lease: 5s, backoff: 1s, max-backoff: 2s, port: 0, history: history.db}");
      Path db = dir.resolve("history.db");

      long killedRun;
      try (ServeProcess first = ServeProcess.start(dir, "first", "--yes")) {
        killedRun = waitForLeasedRun(catalog, db);
        first.kill9();
        History h = History.read(db);
        assertThat(h.rows())
            .filteredOn(r -> r.id() == killedRun)
            .singleElement()
            .satisfies(r -> assertThat(r.status()).isEqualTo("running"));
      }
      Invariants.sameRowsAndNothingMissing(catalog, ID, before);
      assertThat(Content.of(catalog.loadTable(ID))).as("rows after kill -9").isEqualTo(content);

      try (ServeProcess second = ServeProcess.start(dir, "second", "--yes")) {
        assertThat(History.read(db).rows())
            .filteredOn(r -> r.id() == killedRun)
            .singleElement()
            .satisfies(r -> assertThat(r.status())
                .as("the killed run after a restart")
                .isEqualTo("interrupted"));
        History.Row done = waitFor(db, "done");
        assertThat(done.pid()).isEqualTo(second.pid());
        int files = ServeUnderLoadTest.dataFiles(catalog, "raw.big");
        assertThat(files).as("data files after the restarted serve compacted").isLessThan(60);
        assertThat(Content.of(catalog.loadTable(ID)))
            .as("rows after the restarted serve compacted")
            .isEqualTo(content);
        Thread.sleep(2500); // one evaluation after the run

        PrometheusText metrics = PrometheusText.parse(second.get("/metrics").body());
        Map<String, String> labels = PrometheusText.table("lake", "raw.big");
        assertThat(metrics.value("resurfacer_serve_table_data_files", labels)).isEqualTo(files);
        assertThat(metrics.value(
                "resurfacer_serve_runs_total", with(labels, "outcome", "interrupted")))
            .isEqualTo(1);
        assertThat(metrics.value("resurfacer_serve_runs_total", with(labels, "outcome", "done")))
            .isGreaterThanOrEqualTo(1);
        assertThat(metrics.value("resurfacer_serve_run_failures_total", labels)).isEqualTo(1);
        assertThat(metrics.value("resurfacer_serve_reclaimed_files_total", labels))
            .isEqualTo(60 - files);
        assertThat(second.get("/healthz").statusCode()).isEqualTo(200);

        dashboard(second, done.id(), files);

        assertThat(second.post("/tables/pause", "catalog=lake&table=raw.big").statusCode())
            .isEqualTo(303);
        assertThat(PrometheusText.parse(second.get("/metrics").body())
                .value("resurfacer_serve_table_paused", labels))
            .isEqualTo(1);
        assertThat(second.get("/").body()).contains("<button type=\"submit\">resume</button>");
        assertThat(second.post("/tables/resume", "catalog=lake&table=raw.big").statusCode())
            .isEqualTo(303);
        assertThat(PrometheusText.parse(second.get("/metrics").body())
                .value("resurfacer_serve_table_paused", labels))
            .isEqualTo(0);
        assertThat(second.post("/tables/pause", "catalog=lake&table=raw.nope").statusCode())
            .isEqualTo(404);

        assertThat(second.terminate()).as(second.err()).isEqualTo(143);
      }
      assertThat(History.read(db).withStatus("running")).isEmpty();
    }
  }

  /**
   * SIGTERM while a compaction runs: the run finishes its commit within the grace period and is
   * recorded done, then the process exits 143. (The JVM's shutdown hooks used to stop Iceberg's
   * worker pool under the running commit, so such a run failed instead.)
   */
  @Test
  void sigtermLetsTheRunningCompactionCommit() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Table table = Fleet.smallFiles(catalog, "raw", "big", 60);
      TableState before = TableState.capture(table);
      List<String> content = Content.of(table);
      writeConfig(
          lake,
          "{interval: 1s, min-interval: 0s, lease: 5m, port: 0, history: history.db, shutdown-grace: 5m}");
      Path db = dir.resolve("history.db");

      long run;
      try (ServeProcess serve = ServeProcess.start(dir, "term", "--yes")) {
        run = waitForLeasedRun(catalog, db);
        assertThat(serve.terminate()).as(serve.err()).isEqualTo(143);
      }
      assertThat(History.read(db).rows())
          .filteredOn(r -> r.id() == run)
          .singleElement()
          .satisfies(
              r -> assertThat(r.status()).as("the run SIGTERM found running").isEqualTo("done"));
      assertThat(ServeUnderLoadTest.dataFiles(catalog, "raw.big"))
          .as("data files after the run")
          .isLessThan(60);
      assertThat(Content.of(catalog.loadTable(ID))).as("rows after the run").isEqualTo(content);
      Invariants.sameRowsAndNothingMissing(catalog, ID, before);
    }
  }

  /** resurfacer.yml in {@code dir}: the SQLite catalog at {@code lake}, compaction on 5 small files, and {@code serve} as the serve section. */
  private void writeConfig(Path lake, String serve) throws Exception {
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          lake: {type: jdbc, uri: "%s", warehouse: "%s"}
        defaults:
          compact: {min-input-files: 2}
          triggers: {small-files: 5, operations: [compact]}
        serve: %s
        """.formatted(
            SqliteCatalogs.uri(lake), SqliteCatalogs.warehouse(lake), serve));
  }

  private void dashboard(ServeProcess serve, long runId, int files) throws Exception {
    Chromium chromium = Chromium.find(dir);
    String tables = chromium.dom(serve.url("/"));
    Matcher row = Pattern.compile("<tr data-table=\"lake\\.raw\\.big\">(.*?)</tr>", Pattern.DOTALL)
        .matcher(tables);
    assertThat(row.find()).as(tables).isTrue();
    Matcher cells = Pattern.compile("<td class=\"n\">(\\d+)</td>").matcher(row.group(1));
    assertThat(cells.find()).isTrue();
    assertThat(Integer.parseInt(cells.group(1)))
        .as("data files on the tables page")
        .isEqualTo(files);
    assertThat(tables).contains("href=\"/runs/" + runId + "\"");

    String run = chromium.dom(serve.url("/runs/" + runId));
    assertThat(run)
        .contains("<tr><td>data files</td><td class=\"n\">60</td><td class=\"n\">" + files
            + "</td></tr>");
    assertThat(run).contains("small-files 60 &gt;= 5");

    BufferedImage tablesShot = chromium.screenshot(serve.url("/"), dir.resolve("tables.png"));
    assertThat(Chromium.pixels(tablesShot, BEFORE_BARS))
        .as("before bars on the tables page")
        .isGreaterThan(500);
    BufferedImage runShot =
        chromium.screenshot(serve.url("/runs/" + runId), dir.resolve("run.png"));
    assertThat(Chromium.pixels(runShot, BEFORE_BARS))
        .as("before bars on the run page")
        .isGreaterThan(1000);
    assertThat(Chromium.pixels(runShot, AFTER_BARS))
        .as("after bars on the run page")
        .isGreaterThan(300);
    Path keep = Path.of(System.getProperty("serve.screenshots", "target/serve-screenshots"));
    Files.createDirectories(keep);
    Files.copy(
        dir.resolve("tables.png"),
        keep.resolve("tables.png"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        dir.resolve("run.png"),
        keep.resolve("run.png"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static Map<String, String> with(Map<String, String> labels, String key, String value) {
    Map<String, String> m = new java.util.HashMap<>(labels);
    m.put(key, value);
    return m;
  }

  /** The id of a run that is in progress and holds the table's lease: the moment to kill. */
  private static long waitForLeasedRun(JdbcCatalog catalog, Path db) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (Files.exists(db)) {
        var running = History.read(db).withStatus("running");
        if (!running.isEmpty()
            && catalog.loadTable(ID).properties().containsKey("resurfacer.maintain.lease")) {
          return running.get(0).id();
        }
        assertThat(History.read(db).withStatus("done"))
            .as("a run finished before it could be killed")
            .isEmpty();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no run took the lease within 120 s");
  }

  private static History.Row waitFor(Path db, String status) throws Exception {
    long deadline = System.nanoTime() + 150_000_000_000L;
    while (System.nanoTime() < deadline) {
      var rows = History.read(db).withStatus(status);
      if (!rows.isEmpty()) {
        return rows.get(rows.size() - 1);
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "no " + status + " run within 150 s: " + History.read(db).rows());
  }
}
