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
    name = "describe",
    footer = {
      "%nExamples:",
      "  resurfacer describe shop.orders",
      "  resurfacer describe shop.orders --output json",
      "  resurfacer describe /data/lake/events   # a Delta table by path"
    },
    description = {
      "Show a table's health: files, deletes, snapshots, manifests, metadata.",
      "For a Delta table: version, protocol and features, files, deletion vectors, tombstones, checkpoint, log size, retention."
    })
final class DescribeCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  OutputOptions outputOptions;

  @Parameters(
      paramLabel = "TABLE",
      description =
          "namespace.table (Iceberg, or a name a delta catalog maps), or a Delta table's path")
  String tableName;

  DescribeCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Readout health =
        Dispatcher.describe(TableLookups.readOnlyLookup(catalogOptions, ctx, tableName));
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(health.json()) : health.render());
    out.flush();
    return Main.OK;
  }
}
