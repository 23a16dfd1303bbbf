package dev.resurfacer.serve;

import dev.resurfacer.report.TableReport;
import java.time.Instant;
import java.util.List;

/**
 * One row of the run history.
 *
 * @param status {@code running}, {@code interrupted} (its process died or was stopped before it
 *     finished), or the table's outcome: {@code done}, {@code nothing_to_do}, {@code skipped},
 *     {@code refused}, {@code failed}
 * @param trigger the conditions that fired, e.g. {@code small-files 25 >= 20}
 * @param report the table's report (before and after stats, each operation); null until it finished
 * @param reclaimedFiles data and delete files before minus after; 0 until it finished
 */
public record HistoryRun(
    long id,
    String catalog,
    String table,
    String trigger,
    List<String> operations,
    String status,
    Instant startedAt,
    Instant finishedAt,
    Long durationMs,
    String message,
    TableReport report,
    long reclaimedFiles,
    long reclaimedBytes,
    String host,
    long pid) {

  public static final String RUNNING = "running";
  public static final String INTERRUPTED = "interrupted";

  public HistoryRun {
    operations = List.copyOf(operations);
  }

  public String qualifiedTable() {
    return catalog + "." + table;
  }
}
