package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Checkpoint;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "checkpoint",
    footer = {
      "%nExamples:",
      "  resurfacer checkpoint /data/lake/events",
      "  resurfacer checkpoint /data/lake/events --yes"
    },
    description = {
      "Delta tables: write a checkpoint of the latest version with Delta Kernel.",
      "Refused (exit 3) while a tombstone within the file retention precedes the newest checkpoint (see docs/delta.md)."
    })
final class CheckpointCommand extends TableCommand {
  @Mixin
  ActOptions actOptions;

  @Parameters(
      paramLabel = "TABLE",
      description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  CheckpointCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Readout outcome = Dispatcher.local(
        TableLookups.lookup(catalogOptions, ctx, tableName),
        new Checkpoint(),
        actOptions.yes ? Mode.COMMIT : Mode.PREVIEW,
        Progress.NONE,
        0);
    print(outcome);
    return Main.OK;
  }
}
