package dev.resurfacer.cli;

import dev.resurfacer.maintain.ComputeStats;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "compute-stats",
    footer = {
      "%nExamples:",
      "  resurfacer compute-stats shop.orders --yes",
      "  resurfacer compute-stats shop.orders --columns id,customer --yes"
    },
    description = {
      "Estimate distinct values per column (theta sketches) into a Puffin statistics file on the current snapshot,",
      "the file Spark's compute_table_stats writes and Spark and Trino plan with. Reads every live row once.",
      "Previews (names the columns, reads nothing) unless --yes is given."
    })
final class ComputeStatsCommand extends IcebergVerbCommand {
  @Option(
      names = "--columns",
      paramLabel = "COL",
      description =
          "Columns to estimate, comma-separated outside quotes (default: every top-level primitive column).")
  List<String> columns = new ArrayList<>();

  ComputeStatsCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(
        new ComputeStats(dev.resurfacer.names.Identifiers.splitLists(columns, "--columns")));
  }
}
