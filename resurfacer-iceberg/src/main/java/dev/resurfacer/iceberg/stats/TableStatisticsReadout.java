package dev.resurfacer.iceberg.stats;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What {@code compute-stats} shows: the {@link TableStatistics.Result} as JSON, and its text. */
public record TableStatisticsReadout(TableStatistics.Result result) implements RecordReadout {
  @Override
  public String render() {
    TableStatistics.Result r = result;
    if (r.snapshotId() == null) {
      return r.table() + " has no snapshot: nothing to estimate";
    }
    if (!r.committed()) {
      return "would estimate distinct values of "
          + String.join(
              ", ", r.columns().stream().map(TableStatistics.ColumnNdv::column).toList())
          + " at snapshot " + r.snapshotId() + System.lineSeparator()
          + "preview only: nothing was changed (run with --yes to compute)";
    }
    List<String> lines = new ArrayList<>();
    r.columns()
        .forEach(c -> lines.add(String.format(Locale.ROOT, "  %-30s ndv %d", c.column(), c.ndv())));
    lines.add("statistics for snapshot " + r.snapshotId() + " in " + r.path() + " ("
        + ByteSizes.format(r.fileBytes()) + ")");
    return String.join(System.lineSeparator(), lines);
  }
}
