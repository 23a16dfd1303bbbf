package dev.resurfacer.cli;

import dev.resurfacer.iceberg.stats.TableStatistics;
import dev.resurfacer.units.ByteSizes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
final class ComputeStatsCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

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
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      TableStatistics.Plan plan = TableStatistics.plan(
          open.table(), dev.resurfacer.names.Identifiers.splitLists(columns, "--columns"));
      TableStatistics.Result r = act.yes ? TableStatistics.execute(plan) : plan.preview();
      print(r, out -> {
        if (r.snapshotId() == null) {
          out.println(r.table() + " has no snapshot: nothing to estimate");
        } else if (!r.committed()) {
          out.println("would estimate distinct values of "
              + String.join(
                  ", ",
                  r.columns().stream().map(TableStatistics.ColumnNdv::column).toList())
              + " at snapshot " + r.snapshotId());
          out.println("preview only: nothing was changed (run with --yes to compute)");
        } else {
          r.columns()
              .forEach(c -> out.printf(Locale.ROOT, "  %-30s ndv %d%n", c.column(), c.ndv()));
          out.println("statistics for snapshot " + r.snapshotId() + " in " + r.path() + " ("
              + ByteSizes.format(r.fileBytes()) + ")");
        }
      });
      return Main.OK;
    }
  }
}
