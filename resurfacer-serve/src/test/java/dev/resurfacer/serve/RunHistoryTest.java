package dev.resurfacer.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.report.TableStats;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The history in a real SQLite file, as a second process (or a restart) sees it. */
class RunHistoryTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  @TempDir
  Path dir;

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
  void aRunIsRecordedWithItsReportAndReadBackByAnotherHandle() {
    RunHistory h = RunHistory.open(dir.resolve("h.db").toString(), null, null);
    long id = h.start("lake", "raw.events", "small-files 25 >= 20", List.of("compact"), T0);
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

    RunHistory other = RunHistory.open(dir.resolve("h.db").toString(), null, null);
    HistoryRun run = other.get(id).orElseThrow();
    assertThat(run.status()).isEqualTo("done");
    assertThat(run.report()).isEqualTo(report);
    assertThat(run.reclaimedFiles()).isEqualTo(24);
    assertThat(run.reclaimedBytes()).isEqualTo(100);
    assertThat(run.operations()).containsExactly("compact");
    assertThat(other.lastRun("lake", "raw.events")).contains(run);
    assertThat(other.totals())
        .containsExactly(new RunHistory.Totals("lake", "raw.events", "done", 1, 1500, 24, 100));
  }

  @Test
  void aRunOfADeadProcessBecomesInterruptedAndOneOfALiveProcessDoesNot() throws Exception {
    RunHistory h = RunHistory.open(dir.resolve("h.db").toString(), null, null);
    long mine = h.start("lake", "raw.a", "x", List.of("compact"), T0);
    Process dead = new ProcessBuilder("true").start();
    dead.waitFor();
    try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("h.db"));
        var s = c.prepareStatement("UPDATE resurfacer_runs SET pid = ? WHERE id = ?")) {
      long theirs = h.start("lake", "raw.b", "x", List.of("compact"), T0);
      s.setLong(1, dead.pid());
      s.setLong(2, theirs);
      s.executeUpdate();
      assertThat(h.markInterrupted(Duration.ofMinutes(2), T0.plusSeconds(30)))
          .containsExactly(theirs);
      assertThat(h.get(theirs).orElseThrow().status()).isEqualTo("interrupted");
      assertThat(h.get(theirs).orElseThrow().durationMs()).isEqualTo(30_000);
    }
    assertThat(h.get(mine).orElseThrow().status()).isEqualTo("running");
    // completing an interrupted run changes nothing: it stays interrupted
    h.abandon(mine, "interrupted", "stopped", T0.plusSeconds(5), 5000);
    h.finish(
        mine,
        new TableReport("lake", "raw.a", Outcome.DONE, null, 1, null, null, List.of()),
        T0.plusSeconds(6),
        6000);
    assertThat(h.get(mine).orElseThrow().status()).isEqualTo("interrupted");
  }

  @Test
  void pausedTablesAreShared() {
    RunHistory h = RunHistory.open(dir.resolve("h.db").toString(), null, null);
    h.pause("lake", "raw.a", T0);
    h.pause("lake", "raw.a", T0);
    assertThat(RunHistory.open(dir.resolve("h.db").toString(), null, null).paused())
        .containsExactly("lake.raw.a");
    h.resume("lake", "raw.a");
    assertThat(h.paused()).isEmpty();
  }
}
