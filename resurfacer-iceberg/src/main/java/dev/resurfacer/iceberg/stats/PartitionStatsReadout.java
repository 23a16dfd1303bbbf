package dev.resurfacer.iceberg.stats;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;

/** What {@code compute-partition-stats} shows: the {@link PartitionStats.Result} as JSON, and its text. */
public record PartitionStatsReadout(PartitionStats.Result result) implements RecordReadout {
  @Override
  public String render() {
    PartitionStats.Result r = result;
    if (r.snapshotId() == null) {
      return r.table() + " has no snapshot: nothing to compute";
    }
    if (r.alreadyComputed()) {
      return "partition statistics for snapshot " + r.snapshotId() + " already in " + r.path();
    }
    if (!r.committed()) {
      return "would compute partition statistics for snapshot " + r.snapshotId()
          + System.lineSeparator()
          + "preview only: nothing was changed (run with --yes to compute)";
    }
    return "partition statistics for snapshot " + r.snapshotId() + " in " + r.path() + " ("
        + ByteSizes.format(r.fileBytes()) + ")";
  }
}
