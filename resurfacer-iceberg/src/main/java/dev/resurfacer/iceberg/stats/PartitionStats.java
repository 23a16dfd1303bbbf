package dev.resurfacer.iceberg.stats;

import dev.resurfacer.UsageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * Per-partition statistics (record and file counts, sizes, delete counts, last update) computed and
 * written by Iceberg core's {@link PartitionStatsHandler} — incrementally from the newest earlier
 * statistics file when there is one — and set on the current snapshot.
 */
public final class PartitionStats {
  private PartitionStats() {}

  public record Result(String table, boolean committed, Long snapshotId, String path, long fileBytes, boolean alreadyComputed) {}

  public static Result compute(Table table, boolean commit) {
    table.refresh();
    if (table.spec().isUnpartitioned() && table.specs().values().stream().allMatch(s -> s.isUnpartitioned())) {
      throw new UsageException(table.name() + " is unpartitioned: it has no partition statistics");
    }
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new Result(table.name(), false, null, null, 0, false);
    }
    PartitionStatisticsFile existing = table.partitionStatisticsFiles().stream()
        .filter(f -> f.snapshotId() == snapshot.snapshotId()).findFirst().orElse(null);
    if (existing != null) {
      return new Result(table.name(), false, snapshot.snapshotId(), existing.path(), existing.fileSizeInBytes(), true);
    }
    if (!commit) {
      return new Result(table.name(), false, snapshot.snapshotId(), null, 0, false);
    }
    PartitionStatisticsFile file;
    try {
      file = PartitionStatsHandler.computeAndWriteStatsFile(table, snapshot.snapshotId());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      table.updatePartitionStatistics().setPartitionStatistics(file).commit();
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      // deleted only when the commit certainly failed (as Iceberg's own cleanup decides)
      if (e instanceof org.apache.iceberg.exceptions.CleanableFailure) {
        table.io().deleteFile(file.path());
      }
      throw e;
    }
    table.refresh();
    return new Result(table.name(), true, snapshot.snapshotId(), file.path(), file.fileSizeInBytes(), false);
  }
}
