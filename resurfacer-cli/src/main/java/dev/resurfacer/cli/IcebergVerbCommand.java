package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** A verb on one Iceberg table, named {@code namespace.table}, that previews unless {@code --yes}. */
abstract class IcebergVerbCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  IcebergVerbCommand(CliContext ctx) {
    super(ctx);
  }

  /**
   * {@code operation} on this verb's table on the local engine ({@link Dispatcher#local}), previewed unless
   * {@code --yes}, for a verb that deletes no file it has not written itself (so no fence is read): prints
   * what the table's format returns and gives the exit code it calls for.
   */
  final int runLocally(Operation operation) {
    Readout readout = Dispatcher.local(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName),
        operation,
        act.yes ? Mode.COMMIT : Mode.PREVIEW,
        Progress.NONE,
        0);
    print(readout);
    return readout.succeeded() ? Main.OK : Main.FAILED;
  }
}
