package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.report.Readout;
import picocli.CommandLine.Command;

@Command(
    name = "plan",
    footer = {
      "%nExamples:",
      "  resurfacer plan shop.orders",
      "  resurfacer plan shop.orders --partition ts_day=2026-10-01 --target-file-size 256MB"
    },
    description =
        "Show what compaction would rewrite, what it would skip and why. Changes nothing.")
final class PlanCommand extends CompactionCommand {
  PlanCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Readout plan = Dispatcher.planCompaction(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName), flags.settings(spec));
    print(plan);
    return Main.OK;
  }
}
