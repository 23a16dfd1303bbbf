package dev.resurfacer.cli;

import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** A Delta-only verb on one table, named by its path or by a delta catalog, that previews unless {@code --yes}. */
abstract class DeltaVerbCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(
      paramLabel = "TABLE",
      description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  DeltaVerbCommand(CliContext ctx) {
    super(ctx);
  }

  /** {@code operation} on this verb's table on the local engine ({@link #runFenced}), printed. */
  final int runLocally(Operation operation, Progress progress, int show) {
    print(runFenced(tableName, operation, act.yes, progress, show));
    return Main.OK;
  }
}
