package dev.resurfacer.serve.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.serve.HistoryRun;
import dev.resurfacer.serve.MaintenanceService;
import java.util.List;

/** Waiting on a {@link MaintenanceService} that a test steps by hand ({@code evaluate()}), as the CDC writer tests of both formats do. */
public final class ServiceRuns {
  private ServiceRuns() {}

  /** The newest run once it is no longer running; a hang becomes a failure after 120 s. */
  public static HistoryRun finished(MaintenanceService s) {
    for (int i = 0; i < 1200; i++) {
      List<HistoryRun> recent = s.history().recent(1);
      if (!recent.isEmpty() && !HistoryRun.RUNNING.equals(recent.get(0).status())) {
        return recent.get(0);
      }
      sleep(100);
    }
    throw new AssertionError("the run did not finish in 120 s");
  }

  /** The run's compaction, once the run ended {@code done} and the compaction committed or found nothing to do. */
  public static OperationResult doneCompaction(HistoryRun run) {
    OperationResult compact = run.report().operations().stream()
        .filter(o -> o.operation().equals("compact"))
        .findFirst()
        .orElseThrow(() ->
            new AssertionError("run " + run.id() + " ran no compaction: " + run.operations()));
    assertThat(compact.outcome())
        .as("run %s compact: %s", run.id(), compact.message())
        .isIn(Outcome.DONE, Outcome.NOTHING_TO_DO);
    assertThat(run.status()).as("run %s: %s", run.id(), run.report()).isEqualTo("done");
    return compact;
  }

  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
