package dev.resurfacer.cli;

import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.table.DeltaTable;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "checkpoint",
    footer = {"%nExamples:", "  resurfacer checkpoint /data/lake/events", "  resurfacer checkpoint /data/lake/events --yes"},
    description = {"Delta tables: write a checkpoint of the latest version with Delta Kernel.",
        "Refused (exit 3) while a tombstone within the file retention precedes the newest checkpoint (see docs/delta.md)."})
final class CheckpointCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions actOptions;

  @Parameters(paramLabel = "TABLE", description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  CheckpointCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    DeltaTable table = DeltaTargets.require(catalogOptions, ctx, tableName, "checkpoint", "");
    Checkpointer.Outcome outcome = actOptions.yes ? Checkpointer.write(table, Clock.systemUTC())
        : Checkpointer.preview(table, Clock.systemUTC());
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(outcome)
        : "checkpoint " + outcome.table() + ": " + outcome.message() + (actOptions.yes ? "" : "  (preview: --yes writes it)"));
    out.flush();
    return Main.OK;
  }
}
