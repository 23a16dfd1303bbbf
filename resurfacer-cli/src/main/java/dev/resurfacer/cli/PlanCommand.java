package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.report.Readout;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "plan",
    footer = {
      "%nExamples:",
      "  resurfacer plan shop.orders",
      "  resurfacer plan shop.orders --partition ts_day=2026-10-01 --target-file-size 256MB"
    },
    description =
        "Show what compaction would rewrite, what it would skip and why. Changes nothing.")
final class PlanCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  OutputOptions outputOptions;

  @Mixin
  CompactionFlags flags;

  @Parameters(
      paramLabel = "TABLE",
      description = "namespace.table, or a Delta table (path or delta-catalog name)")
  String tableName;

  PlanCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Readout plan = Dispatcher.planCompaction(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName), flags.settings(spec));
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(plan.json()) : plan.render());
    out.flush();
    return Main.OK;
  }
}
