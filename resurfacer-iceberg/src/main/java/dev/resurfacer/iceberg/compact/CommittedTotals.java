package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The {@link CompactionResult} of a run: what the committed groups rewrote and added, the
 * snapshots they made, and the delete files they left dangling, read back from the table.
 */
final class CommittedTotals {
  private CommittedTotals() {}

  /** The result of a plan with no group to rewrite. */
  static CompactionResult none(Table table, long startedNanos, String verification) {
    return new CompactionResult(
        table.name(),
        List.of(),
        0,
        0,
        0,
        0,
        0,
        0,
        List.of(),
        0,
        Compaction.millisSince(startedNanos),
        PeakMemory.rssBytes(),
        verification);
  }

  static CompactionResult of(
      PlannedCompaction plan, CommitPhase.Outcome outcome, long startedNanos, String verification) {
    Table table = plan.table();
    Set<RewriteFileGroup> committed = outcome.committed();
    table.refresh();
    List<Long> snapshots = new ArrayList<>();
    if (!committed.isEmpty()) {
      for (Snapshot s : SnapshotUtil.ancestorsBetween(
          table, table.currentSnapshot().snapshotId(), plan.startingSnapshotId())) {
        if ("compact".equals(s.summary().get(Compaction.SUMMARY_PROPERTY))) {
          snapshots.add(0, s.snapshotId());
        }
      }
    }
    Set<String> applied = new HashSet<>();
    long rewrittenFiles = 0, rewrittenBytes = 0, addedFiles = 0, addedBytes = 0, rows = 0;
    for (RewriteFileGroup g : committed) {
      rewrittenFiles += g.rewrittenFiles().size();
      rewrittenBytes += g.inputFilesSizeInBytes();
      addedFiles += g.addedFiles().size();
      addedBytes += g.addedFiles().stream().mapToLong(DataFile::fileSizeInBytes).sum();
      rows += g.addedFiles().stream().mapToLong(DataFile::recordCount).sum();
      GroupPlanner.deleteFiles(g).forEach(d -> applied.add(d.location()));
    }
    long dangling = committed.isEmpty() ? 0 : countDangling(table, applied);
    return new CompactionResult(
        table.name(),
        outcome.groups(),
        rewrittenFiles,
        rewrittenBytes,
        addedFiles,
        addedBytes,
        applied.size(),
        rows,
        snapshots,
        dangling,
        Compaction.millisSince(startedNanos),
        PeakMemory.rssBytes(),
        verification);
  }

  /**
   * Delete files the rewritten groups applied that no live data file needs any more. A Parquet
   * position delete that is not file-scoped stays attached by partition and sequence number to the
   * new files, so whether it still names a live file is read from its file_path column.
   */
  private static long countDangling(Table table, Set<String> applied) {
    Map<String, DeleteFile> attached = new java.util.HashMap<>();
    Set<String> liveData = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        liveData.add(t.file().location());
        t.deletes().forEach(d -> attached.putIfAbsent(d.location(), d));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> inTable = new HashSet<>();
    for (var manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (var reader = org.apache.iceberg.ManifestFiles.readDeleteManifest(
          manifest, table.io(), table.specs())) {
        reader.forEach(d -> inTable.add(d.location()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long dangling = 0;
    for (String location : applied) {
      if (!inTable.contains(location)) {
        continue;
      }
      DeleteFile d = attached.get(location);
      if (d == null
          || d.content() == org.apache.iceberg.FileContent.POSITION_DELETES
              && !org.apache.iceberg.util.ContentFileUtil.isDV(d)
              && !namesAny(table, d, liveData)) {
        dangling++;
      }
    }
    return dangling;
  }

  private static boolean namesAny(Table table, DeleteFile d, Set<String> liveData) {
    org.apache.iceberg.Schema pathOnly =
        new org.apache.iceberg.Schema(org.apache.iceberg.MetadataColumns.DELETE_FILE_PATH);
    try (CloseableIterable<org.apache.iceberg.data.Record> rows =
        org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(d))
            .project(pathOnly)
            .createReaderFunc(fs ->
                org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(pathOnly, fs))
            .build()) {
      for (org.apache.iceberg.data.Record r : rows) {
        if (liveData.contains(r.get(0).toString())) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the process's peak resident set size (Linux {@code VmHWM}); -1 where unavailable. */
  static final class PeakMemory {
    private PeakMemory() {}

    static long rssBytes() {
      try {
        for (String line : Files.readAllLines(
            Path.of("/proc/self/status"), java.nio.charset.StandardCharsets.UTF_8)) {
          if (line.startsWith("VmHWM:")) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
          }
        }
      } catch (IOException | RuntimeException ignored) {
        // not Linux: peak memory is reported as unknown
      }
      return -1;
    }
  }
}
