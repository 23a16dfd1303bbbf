package dev.resurfacer.cli;

import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.table.DeltaTable;
import java.time.Clock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "checkpoint",
    footer = {"%nExamples:", "  resurfacer checkpoint /data/lake/events", "  resurfacer checkpoint /data/lake/events --yes"},
    description = {"Delta tables: write a checkpoint of the latest version with Delta Kernel.",
        "Refused (exit 3) while a tombstone within the file retention precedes the newest checkpoint (see docs/delta.md)."})
final class CheckpointCommand extends TableCommand {
  @Mixin ActOptions actOptions;

  @Parameters(paramLabel = "TABLE", description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  CheckpointCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    DeltaTable table = DeltaTargets.require(catalogOptions, ctx, tableName, "checkpoint", "");
    Checkpointer.Outcome outcome = actOptions.yes ? Checkpointer.write(table, Clock.systemUTC())
        : Checkpointer.preview(table, Clock.systemUTC());
    print(outcome, out -> out.println("checkpoint " + outcome.table() + ": " + outcome.message()
        + (actOptions.yes ? "" : "  (preview: --yes writes it)")));
    return Main.OK;
  }
}
