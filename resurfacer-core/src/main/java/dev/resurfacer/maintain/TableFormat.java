package dev.resurfacer.maintain;

import dev.resurfacer.formats.Format;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.TableStats;
import dev.resurfacer.storage.StorageFences;
import java.time.Duration;
import java.util.List;

/**
 * What a table format supplies so the runner can maintain its tables without knowing
 * which one it is: listing, opening, measuring and leasing tables, and executors for the built-in
 * operations. Iceberg and Delta implement it; who executes the operations is the separate
 * execution-engine SPI ({@link dev.resurfacer.engines.ExecutionEngine}).
 *
 * @param <T> the engine's handle for one open table
 */
public interface TableFormat<T> extends AutoCloseable {
  /** Which format this is; {@link Format#id()} is the name engines declare capabilities under. */
  Format format();

  /** The handle type, by which an execution engine hands out its executors for this format. */
  Class<T> handleType();

  /** The catalog's name, shown in reports. */
  String catalogName();

  /** Every table ({@code namespace.table}) of the catalog, in every namespace. */
  List<String> allTables();

  /** The tables of one namespace; fails if the namespace does not exist. */
  List<String> tablesIn(String namespace);

  T open(String table);

  /** Re-reads the table's current state; called before each operation and before measuring. */
  void refresh(T table);

  TableStats stats(T table);

  /**
   * Takes this table's maintenance lease for {@code ttl}, or throws {@link LeaseHeld} naming the
   * holder. Only {@link Mode#COMMIT} runs take it, so a preview writes nothing.
   */
  AutoCloseable lease(T table, String owner, Duration ttl);

  /**
   * The signals {@code serve}'s triggers read, from metadata only. This default measures the table
   * with {@link #stats} and leaves unknown what stats do not hold; engines override it with a
   * cheaper reading.
   *
   * @param since count commits after this instant (null: every snapshot)
   */
  default TableSignals signals(T table, java.time.Instant since) {
    dev.resurfacer.report.TableStats s = stats(table);
    return new TableSignals(
        s.dataFiles(),
        s.smallDataFiles(),
        s.deleteFiles(),
        s.dataRecords(),
        null,
        s.snapshots(),
        null,
        null,
        null);
  }

  /**
   * As {@link #signals(Object, java.time.Instant)}, with small files counted only where compaction
   * would rewrite them: in a partition holding at least two, and at least {@code minInputFiles} of them
   * unless together they exceed the target file size (what a bin-pack plan takes). This default counts
   * every small file.
   */
  default TableSignals signals(T table, java.time.Instant since, int minInputFiles) {
    return signals(table, since);
  }

  /**
   * The age guard {@code operation} takes from the table when it is given none (Delta's vacuum and
   * log cleanup use the table's retention properties then); empty when this engine cannot tell. The
   * runner reads it to decide whether the step may run after an earlier step failed.
   */
  default java.util.Optional<Duration> tableRetention(T table, Operation operation) {
    return java.util.Optional.empty();
  }

  /** This format with {@code fences} for what its destructive steps must respect (other tables, of either format). */
  TableFormat<T> withFences(StorageFences fences);

  /** This format reporting its operations' own work to {@code progress}; formats that report nothing return themselves. */
  default TableFormat<T> withProgress(Progress progress) {
    return this;
  }

  /** Where the runner reports tables and operations. */
  default Progress progress() {
    return Progress.NONE;
  }

  /** The format's {@code advise} (the layout its scan reports call for), or empty when the format has none. */
  default java.util.Optional<LayoutAdvice<T>> layoutAdvice() {
    return java.util.Optional.empty();
  }

  /** {@code advise} on one table of this format: the same code the CLI verb runs. */
  @FunctionalInterface
  interface LayoutAdvice<T> {
    Advice advise(String name, T table, ScanReports.Loaded reports, double minGain);
  }

  /** Executors for the built-in operations. */
  List<OperationExecutor<?, T>> builtInExecutors();

  @Override
  default void close() {}
}
