package dev.resurfacer.serve;

import dev.resurfacer.maintain.TableSignals;
import java.time.Instant;

/**
 * What the scheduler last knew of one table, for the dashboard and {@code /metrics}.
 *
 * @param assessment null until its signals were read once
 * @param error the last error reading its signals, or null
 * @param backoffUntil no evaluation before this instant (after an error, or a lease held elsewhere)
 * @param runningId the history id of the run in progress in this process, or null
 */
public record TableState(
    String catalog,
    String table,
    TableSignals signals,
    Assessment assessment,
    Instant evaluatedAt,
    String error,
    Instant backoffUntil,
    int failuresInARow,
    Long runningId,
    boolean paused,
    boolean triggersSet) {

  public String qualified() {
    return catalog + "." + table;
  }

  /** {@code running}, {@code paused}, {@code backoff}, {@code fired}, {@code waiting} or {@code no-triggers}. */
  public String state(Instant now) {
    if (runningId != null) {
      return "running";
    }
    if (paused) {
      return "paused";
    }
    if (backoffUntil != null && backoffUntil.isAfter(now)) {
      return "backoff";
    }
    if (!triggersSet) {
      return "no-triggers";
    }
    return assessment != null && !assessment.fired().isEmpty() ? "fired" : "waiting";
  }
}
