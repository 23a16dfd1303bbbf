package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;

/**
 * What every verb on one table shares beyond the catalog flags: a fenced run on the local engine and how it
 * shows its progress. The TABLE argument stays with each verb (or {@link IcebergVerbCommand},
 * {@link DeltaVerbCommand}): its wording differs by format.
 */
abstract class TableCommand extends CatalogCommand {
  TableCommand(CliContext ctx) {
    super(ctx);
  }

  /** What a run shows of its progress on stderr: nothing for a preview ({@code yes} false). */
  final Progress progress(boolean yes) {
    return yes
        ? ProgressDisplay.choose(ctx, outputOptions, false, spec.commandLine().getErr())
        : Progress.NONE;
  }

  /**
   * {@code operation} on the named table on the local engine ({@link Dispatcher#local}), previewed unless
   * {@code yes}, with the fences of every configured catalog read: what the table's format returns, listing
   * at most {@code show} files by name.
   */
  final Readout runFenced(
      String tableName, Operation operation, boolean yes, Progress progress, int show) {
    return Dispatcher.local(
        TableLookups.lookup(catalogOptions, ctx, tableName),
        operation,
        yes ? Mode.COMMIT : Mode.PREVIEW,
        progress,
        show);
  }
}
