package dev.resurfacer.report;

import java.util.List;

/**
 * One table's run.
 *
 * @param outcome {@code done} (every step done or nothing to do), {@code previewed}, {@code skipped}
 *     (another run holds the lease), {@code refused} or {@code failed}
 * @param message why the table was skipped or failed; null otherwise
 * @param before null when the table could not be opened
 * @param after null in a preview or when the table could not be opened
 */
public record TableReport(
    String catalog,
    String table,
    Outcome outcome,
    String message,
    long durationMs,
    TableStats before,
    TableStats after,
    List<OperationResult> operations) {

  public TableReport {
    operations = List.copyOf(operations);
  }
}
