package dev.resurfacer.cli;

import dev.resurfacer.iceberg.stats.PartitionStats;
import dev.resurfacer.units.ByteSizes;
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
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      PartitionStats.Plan plan = PartitionStats.plan(open.table());
      PartitionStats.Result r = act.yes ? PartitionStats.execute(plan) : plan.preview();
      print(r, out -> {
        if (r.snapshotId() == null) {
          out.println(r.table() + " has no snapshot: nothing to compute");
        } else if (r.alreadyComputed()) {
          out.println(
              "partition statistics for snapshot " + r.snapshotId() + " already in " + r.path());
        } else if (!r.committed()) {
          out.println("would compute partition statistics for snapshot " + r.snapshotId());
          out.println("preview only: nothing was changed (run with --yes to compute)");
        } else {
          out.println("partition statistics for snapshot " + r.snapshotId() + " in " + r.path()
              + " (" + ByteSizes.format(r.fileBytes()) + ")");
        }
      });
      return Main.OK;
    }
  }
}
