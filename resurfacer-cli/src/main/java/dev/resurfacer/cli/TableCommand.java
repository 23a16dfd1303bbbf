package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;

/**
 * What every verb on one table shares beyond the catalog flags: the runs on the local engine or another. The
 * TABLE argument stays with each verb (or {@link EngineVerbCommand}): its wording differs by format.
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
   * {@code operation} on the named table on {@code engine} ({@link EngineRoute} for one other than local, else
   * {@link #runLocally}), previewed unless {@code yes}.
   */
  final int runOn(String engine, String tableName, Operation operation, boolean yes) {
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      return EngineRoute.run(this, engine, tableName, operation, yes);
    }
    return runLocally(tableName, operation, yes);
  }

  /**
   * {@code operation} on the named table on the local engine ({@link Dispatcher#local}), previewed unless
   * {@code yes}, for a verb that deletes no file it has not written itself (so no fence is read): prints
   * what the table's format returns and gives the exit code it calls for.
   */
  final int runLocally(String tableName, Operation operation, boolean yes) {
    Readout readout = Dispatcher.local(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName),
        operation,
        yes ? Mode.COMMIT : Mode.PREVIEW,
        Progress.NONE,
        0);
    print(readout);
    return readout.succeeded() ? Main.OK : Main.FAILED;
  }
}
