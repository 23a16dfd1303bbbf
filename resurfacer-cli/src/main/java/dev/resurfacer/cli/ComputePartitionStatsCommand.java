package dev.resurfacer.cli;

import dev.resurfacer.maintain.ComputePartitionStats;
import picocli.CommandLine.Command;

@Command(
    name = "compute-partition-stats",
    footer = {"%nExamples:", "  resurfacer compute-partition-stats shop.orders --yes"},
    description = {
      "Write per-partition statistics (records, files, sizes, deletes, last update) for the current snapshot with",
      "Iceberg core's PartitionStatsHandler (incremental from an earlier statistics file) and set them on the table.",
      "Previews unless --yes is given."
    })
final class ComputePartitionStatsCommand extends IcebergVerbCommand {
  ComputePartitionStatsCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(new ComputePartitionStats());
  }
}
