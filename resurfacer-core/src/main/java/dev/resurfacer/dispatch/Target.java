package dev.resurfacer.dispatch;

import dev.resurfacer.formats.Format;

/**
 * A table a command names, resolved to its format; {@link #open()} opens it (for an Iceberg table, its
 * catalog), so an operation refused by what engines declare is refused before anything is connected to.
 *
 * @param <T> the format's handle for one open table
 */
public interface Target<T> extends AutoCloseable {
  Format format();

  /** The name as the user wrote it, for reports. */
  String name();

  Class<T> handleType();

  /** The open table; the same handle on every call. */
  T open();

  /** The format's own executors: what the local engine runs on this table ({@link dev.resurfacer.maintain.TableFormat#builtInExecutors()}). */
  java.util.List<dev.resurfacer.maintain.OperationExecutor<?, T>> builtInExecutors();

  /** What {@code describe} shows of the table: the format's health record, which renders its own text. */
  dev.resurfacer.report.Readout describe();

  /**
   * {@code advise} on the table: the layout its scan reports call for ({@link dev.resurfacer.layout.Advice}).
   *
   * @param name the table as the user named it, for the advice's text
   */
  dev.resurfacer.layout.Advice advise(
      String name, dev.resurfacer.layout.ScanReports.Loaded reports, double minGain);

  /** {@code plan}: what compaction with {@code settings} would rewrite; changes nothing. */
  dev.resurfacer.report.Readout planCompaction(dev.resurfacer.maintain.CompactionSettings settings);

  /**
   * {@code compact} on the local engine: in {@link dev.resurfacer.maintain.Mode#PREVIEW} the plan as
   * {@code compact} shows it, in {@link dev.resurfacer.maintain.Mode#COMMIT} the verified rewrite.
   *
   * @param groupLines one line per finished group, for a display without a bar (formats that report none ignore it)
   */
  dev.resurfacer.report.Readout compact(
      dev.resurfacer.maintain.CompactionSettings settings,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      java.util.function.Consumer<String> groupLines);

  /**
   * A verb the local engine declares for some formats only ({@code vacuum}, {@code checkpoint},
   * {@code cleanup-log}: Delta; {@code expire}, {@code remove-orphans}: Iceberg), on this table, previewed
   * or done as {@code mode} says. Only called for an operation declared for this format
   * ({@link Dispatcher#local}); a format that declares none keeps this default.
   *
   * @param progress told of the deletes of a run that acts
   * @param show how many files the text form lists by name
   * @param warnings told of each warning as soon as it is known, so a user sees it before anything is deleted
   */
  default dev.resurfacer.report.Readout act(
      dev.resurfacer.maintain.Operation operation,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show,
      java.util.function.Consumer<String> warnings) {
    throw new UnsupportedOperationException(
        format().id() + " tables have no executor for " + operation.name());
  }

  /**
   * {@code restore-orphans}: puts back the files a {@code remove-orphans --quarantine} run of this table
   * moved, previewed or done as {@code mode} says; a format without a quarantine keeps this default.
   */
  default dev.resurfacer.report.Readout restoreOrphans(
      String runId, dev.resurfacer.maintain.Mode mode) {
    throw new UnsupportedOperationException(
        format().id() + " tables have no quarantine to restore from");
  }

  /** Closes what {@link #open()} opened. */
  @Override
  void close();
}
