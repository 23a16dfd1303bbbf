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

  public record Result(
      String table,
      boolean committed,
      Long snapshotId,
      String path,
      long fileBytes,
      boolean alreadyComputed) {}

  /**
   * What {@link #execute} would do: nothing when the table has no snapshot or its current snapshot
   * already has statistics ({@code existing}), else compute them for {@code snapshot}.
   */
  public record Plan(Table table, Snapshot snapshot, PartitionStatisticsFile existing) {
    /** The plan as a result that committed nothing. */
    public Result preview() {
      if (snapshot == null) {
        return new Result(table.name(), false, null, null, 0, false);
      }
      if (existing != null) {
        return new Result(
            table.name(),
            false,
            snapshot.snapshotId(),
            existing.path(),
            existing.fileSizeInBytes(),
            true);
      }
      return new Result(table.name(), false, snapshot.snapshotId(), null, 0, false);
    }
  }

  /** Reads the table, changes nothing; an unpartitioned table is a usage error. */
  public static Plan plan(Table table) {
    table.refresh();
    if (table.spec().isUnpartitioned()
        && table.specs().values().stream().allMatch(s -> s.isUnpartitioned())) {
      throw new UsageException(table.name() + " is unpartitioned: it has no partition statistics");
    }
    Snapshot snapshot = table.currentSnapshot();
    PartitionStatisticsFile existing = snapshot == null
        ? null
        : table.partitionStatisticsFiles().stream()
            .filter(f -> f.snapshotId() == snapshot.snapshotId())
            .findFirst()
            .orElse(null);
    return new Plan(table, snapshot, existing);
  }

  public static Result execute(Plan plan) {
    Table table = plan.table();
    Snapshot snapshot = plan.snapshot();
    if (snapshot == null || plan.existing() != null) {
      return plan.preview();
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
    return new Result(
        table.name(), true, snapshot.snapshotId(), file.path(), file.fileSizeInBytes(), false);
  }
}
