package dev.resurfacer.cli;

import dev.resurfacer.maintain.ComputePartitionStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "compute-partition-stats",
    footer = {"%nExamples:", "  resurfacer compute-partition-stats shop.orders --yes"},
    description = {
      "Write per-partition statistics (records, files, sizes, deletes, last update) for the current snapshot with",
      "Iceberg core's PartitionStatsHandler (incremental from an earlier statistics file) and set them on the table.",
      "Previews unless --yes is given."
    })
final class ComputePartitionStatsCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  ComputePartitionStatsCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(tableName, new ComputePartitionStats(), act.yes);
  }
}
