package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.report.Readout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

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
final class DescribeCommand extends TableCommand {
  @Parameters(
      paramLabel = "TABLE",
      description =
          "namespace.table (Iceberg, or a name a delta catalog maps), or a Delta table's path")
  String tableName;

  DescribeCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Readout health =
        Dispatcher.describe(TableLookups.readOnlyLookup(catalogOptions, ctx, tableName));
    print(health);
    return Main.OK;
  }
}
