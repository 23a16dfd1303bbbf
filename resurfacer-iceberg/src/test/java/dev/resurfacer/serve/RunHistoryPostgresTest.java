package dev.resurfacer.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.PostgresServer;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.report.TableStats;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code serve.history: jdbc:postgresql:...} against the real PostgreSQL that {@link PostgresServer}
 * starts: each test in a schema of its own, as two serve processes on two hosts would share it.
 */
class RunHistoryPostgresTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  private PostgresServer server;
  private String schema;
  private String url;

  @BeforeEach
  void schema() throws Exception {
    server = PostgresServer.require();
    schema = "serve_history_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c =
            DriverManager.getConnection(server.url(), server.user(), server.password());
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    url = server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  @AfterEach
  void drop() throws Exception {
    if (schema != null) {
      try (Connection c =
              DriverManager.getConnection(server.url(), server.user(), server.password());
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  private RunHistory open() {
    return RunHistory.open(url, server.user(), server.password());
  }

  private static TableStats stats(long files, long bytes) {
    return new TableStats(
        files,
        bytes,
        100,
        files,
        1,
        10,
        3,
        2,
        1000,
        List.of(new TableStats.SizeBucket("< 1 MB", 0, 1 << 20, files, bytes)));
  }

  @Test
  void aRunIsRecordedAndReadBackByAnotherConnectionWithTotalsAndPauses() {
    RunHistory h = open();
    long id = h.start("lake", "raw.events", "small-files 25 >= 20", List.of("compact"), T0);
    assertThat(open().lastRun("lake", "raw.events"))
        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo("running"));
    TableReport report = new TableReport(
        "lake",
        "raw.events",
        Outcome.DONE,
        null,
        1500,
        stats(25, 2500),
        stats(1, 2400),
        List.of(new OperationResult(
            "compact", Outcome.DONE, "rewrote 25 file(s)", 1400, Map.of("rewritten_files", 25L))));
    h.finish(id, report, T0.plusSeconds(2), 1500);

    RunHistory other = open();
    HistoryRun run = other.get(id).orElseThrow();
    assertThat(run.status()).isEqualTo("done");
    assertThat(run.report()).isEqualTo(report);
    assertThat(run.startedAt()).isEqualTo(T0);
    assertThat(run.finishedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(run.reclaimedFiles()).isEqualTo(24);
    assertThat(run.operations()).containsExactly("compact");
    assertThat(other.totals())
        .containsExactly(new RunHistory.Totals("lake", "raw.events", "done", 1, 1500, 24, 100));

    h.pause("lake", "raw.a", T0);
    h.pause("lake", "raw.a", T0);
    assertThat(other.paused()).containsExactly("lake.raw.a");
    other.resume("lake", "raw.a");
    assertThat(h.paused()).isEmpty();
  }

  @Test
  void aRunOfAProcessThatIsGoneBecomesInterrupted() throws Exception {
    RunHistory h = open();
    long mine = h.start("lake", "raw.a", "x", List.of("compact"), T0);
    Process dead = new ProcessBuilder("true").start();
    dead.waitFor();
    long theirs = h.start("lake", "raw.b", "x", List.of("compact"), T0);
    try (Connection c = DriverManager.getConnection(url, server.user(), server.password());
        PreparedStatement s =
            c.prepareStatement("UPDATE resurfacer_runs SET pid = ? WHERE id = ?")) {
      s.setLong(1, dead.pid());
      s.setLong(2, theirs);
      assertThat(s.executeUpdate()).isEqualTo(1);
    }
    assertThat(h.markInterrupted(Duration.ofMinutes(2), T0.plusSeconds(30)))
        .containsExactly(theirs);
    assertThat(open().get(theirs).orElseThrow().status()).isEqualTo("interrupted");
    assertThat(h.get(mine).orElseThrow().status()).isEqualTo("running");
  }
}
