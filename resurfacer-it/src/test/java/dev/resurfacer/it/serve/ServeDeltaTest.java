package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.it.delta.KernelTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code serve} processes over a {@code type: delta} catalog whose table Delta Kernel wrote in
 * small commits: while another process holds the table's Delta lease both record the run as
 * skipped; once it is released one of them compacts the table (content unchanged, one run in the
 * history, never two at once), and {@code /metrics} shows the table's signals read from its log,
 * counting the writer's later commits but not the compaction's own.
 */
class ServeDeltaTest {
  static final int COMMITS = 12;
  static final int ROWS = 50;

  @TempDir
  Path dir;

  @Test
  void twoServersCompactADeltaTableOnceItsLeaseIsFree() throws Exception {
    KernelTable table = KernelTable.create(dir.resolve("events"));
    for (int i = 0; i < COMMITS; i++) {
      table.append((long) i * ROWS, ROWS);
    }
    List<String> before = table.rows();
    assertThat(before).hasSize(COMMITS * ROWS);
    // another maintenance process holds the table's lease: the file DeltaLease writes for it
    Path lease = Files.createDirectories(dir.resolve("events/_resurfacer"))
        .resolve("lease-00000000000000000001");
    Files.writeString(lease, "cron-maintain@elsewhere until " + Instant.now().plusSeconds(3600));
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          deltas: {type: delta, tables: {raw.events: events}}
        defaults:
          compact: {min-input-files: 2}
          triggers: {small-files: 8}
        serve: {interval: 1s, concurrency: 1, min-interval: 1s, backoff: 1s, max-backoff: 2s, lease: 10m, port: 0, history: history.db}
        """);
    Path db = dir.resolve("history.db");
    List<ServeProcess> serves = ServeProcess.startAll(dir, List.of("a", "b"), "--yes");
    try (ServeProcess a = serves.get(0);
        ServeProcess b = serves.get(1)) {
      History skipped = await(
          db, h -> !h.withStatus("skipped").isEmpty(), "a run skipped while the lease is held");
      assertThat(skipped.withStatus("done"))
          .as("runs while another process held the lease")
          .isEmpty();
      assertThat(table.rows()).isEqualTo(before);

      Files.delete(lease); // the holder releases it, as DeltaLease.close does
      History done =
          await(db, h -> !h.withStatus("done").isEmpty(), "a compaction once the lease is free");
      assertThat(done.withStatus("done")).singleElement().satisfies(r -> {
        assertThat(r.trigger()).startsWith("small-files " + COMMITS);
        assertThat(r.reclaimedFiles()).as("12 files in, 1 out").isEqualTo(COMMITS - 1);
      });
      assertThat(table.rows()).as("rows after compaction").isEqualTo(before);

      // the writer goes on: three commits of its own, the compaction's commit not counted
      List<String> expected = new ArrayList<>(before);
      for (int i = COMMITS; i < COMMITS + 3; i++) {
        table.append((long) i * ROWS, ROWS);
        for (long id = (long) i * ROWS; id < (long) (i + 1) * ROWS; id++) {
          expected.add(id + ":v" + id);
        }
      }
      expected.sort(null);
      Map<String, String> labels = PrometheusText.table("deltas", "raw.events");
      PrometheusText metrics =
          awaitMetrics(a, m -> m.value("resurfacer_serve_table_data_files", labels) == 4.0);
      assertThat(metrics.value("resurfacer_serve_table_small_data_files", labels))
          .isEqualTo(4.0);
      assertThat(metrics.value("resurfacer_serve_table_commits_since_last_run", labels))
          .isEqualTo(3.0);
      assertThat(metrics.value("resurfacer_serve_table_delete_files", labels)).isZero();
      assertThat(metrics.value("resurfacer_serve_reclaimed_files_total", labels))
          .isEqualTo(COMMITS - 1);
      assertThat(metrics.value("resurfacer_serve_table_health_score", labels))
          .isBetween(50.0, 100.0);
      assertThat(table.rows()).isEqualTo(expected);

      assertThat(a.terminate()).as("SIGTERM: %s", a.err()).isEqualTo(143);
      assertThat(b.terminate()).as("SIGTERM: %s", b.err()).isEqualTo(143);
      History history = History.read(db);
      assertThat(history.withStatus("done"))
          .as("one compaction, by one of the two")
          .hasSize(1);
      assertThat(history.rows())
          .extracting(History.Row::status)
          .allMatch(s -> s.equals("done") || s.equals("skipped"));
      ServeUnderLoadTest.neverTwoAtOnce(history);
      assertThat(a.err() + b.err())
          .doesNotContain("Exception in thread")
          .doesNotContain("operation=evaluate outcome=failed");
    }
  }

  private static History await(Path db, Predicate<History> condition, String what)
      throws Exception {
    long limit = System.currentTimeMillis() + 120_000;
    while (true) {
      History h = Files.exists(db) ? History.read(db) : new History(List.of());
      if (condition.test(h)) {
        return h;
      }
      assertThat(System.currentTimeMillis())
          .as("%s within 120 s: %s", what, h.rows())
          .isLessThan(limit);
      Thread.sleep(200);
    }
  }

  private static PrometheusText awaitMetrics(
      ServeProcess serve, Predicate<PrometheusText> condition) throws Exception {
    long limit = System.currentTimeMillis() + 120_000;
    while (true) {
      var response = serve.get("/metrics");
      assertThat(response.statusCode()).isEqualTo(200);
      PrometheusText m = PrometheusText.parse(response.body());
      if (condition.test(m)) {
        return m;
      }
      assertThat(System.currentTimeMillis())
          .as("metrics within 120 s:%n%s", response.body())
          .isLessThan(limit);
      Thread.sleep(200);
    }
  }
}
