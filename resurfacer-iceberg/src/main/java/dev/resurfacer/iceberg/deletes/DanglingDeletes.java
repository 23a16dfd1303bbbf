package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.iceberg.deletes.DanglingDeletesResult.DanglingDelete;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RemoveDanglingDeleteFiles;
import org.apache.iceberg.actions.RemoveDanglingDeleteFilesAction;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Removes delete files that no live data file can be affected by any more, typically left behind
 * when compaction rewrote the data they targeted. A delete file dangles when Iceberg's own scan
 * planner attaches it to no data file: the planner applies the sequence-number rules (position
 * deletes and deletion vectors reach data with a sequence number up to theirs, equality deletes
 * only strictly older data), the partition and spec rules, and a file-scoped delete's one target.
 * The commit is core's {@link RemoveDanglingDeleteFilesAction}: a metadata-only rewrite validated
 * against the snapshot that was examined.
 */
public final class DanglingDeletes {
  private DanglingDeletes() {}

  /**
   * The dangling delete files of one snapshot (null for a table without one), out of the
   * {@code deleteFiles} it has live.
   */
  public record Plan(
      String name, Table table, Long snapshotId, long deleteFiles, List<DeleteFile> dangling) {
    /** The plan as a result that committed nothing. */
    public DanglingDeletesResult preview() {
      return result(name, false, snapshotId, deleteFiles, dangling, table);
    }
  }

  /** The dangling delete files of the current snapshot. Reads metadata; commits nothing. */
  public static Plan plan(String name, Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new Plan(name, table, null, 0, List.of());
    }
    List<ManifestFile> deleteManifests = snapshot.deleteManifests(table.io());
    return new Plan(
        name,
        table,
        snapshot.snapshotId(),
        liveDeleteFiles(table, deleteManifests),
        find(table, snapshot.snapshotId(), deleteManifests));
  }

  /**
   * Removes the dangling delete files in one {@code replace} commit. They are found again, by the
   * same rule as the plan, in the snapshot current at the commit: a writer's commit since the plan
   * may have changed which dangle, and core validates the commit against that snapshot.
   */
  public static DanglingDeletesResult execute(Plan plan) {
    String name = plan.name();
    Table table = plan.table();
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return result(name, false, null, 0, List.of(), table);
    }
    // the plan's snapshot is still current unless a writer committed since: what it found stands
    boolean planned = plan.snapshotId() != null && plan.snapshotId() == snapshot.snapshotId();
    long before =
        planned ? plan.deleteFiles() : liveDeleteFiles(table, snapshot.deleteManifests(table.io()));
    RemoveDanglingDeleteFiles.Result removed = null;
    for (int attempt = 1; removed == null; attempt++) {
      try {
        removed = new RemoveDanglingDeleteFilesAction(
                table,
                (id, manifests) -> planned && plan.snapshotId().equals(id)
                    ? plan.dangling()
                    : find(table, id, manifests))
            .execute();
      } catch (RuntimeException e) {
        // a writer committed between core's look and its commit (a CDC table does every second):
        // core refuses rather than commit a stale list; the next attempt looks again from the new
        // snapshot
        if (attempt >= ATTEMPTS
            || e.getMessage() == null
            || !e.getMessage().contains("current snapshot changed")) {
          throw e;
        }
        table.refresh();
        pause(attempt);
      }
    }
    List<DeleteFile> files = new ArrayList<>();
    removed.removedDeleteFiles().forEach(files::add);
    table.refresh();
    boolean committed = !files.isEmpty();
    Snapshot now = table.currentSnapshot();
    return result(
        name,
        committed,
        committed ? now.snapshotId() : snapshot.snapshotId(),
        before,
        files,
        table);
  }

  /** Attempts of the removal when a writer's commit keeps landing between its look and its commit. */
  static final int ATTEMPTS = 5;

  private static void pause(int attempt) {
    try {
      Thread.sleep(
          50L * attempt + java.util.concurrent.ThreadLocalRandom.current().nextLong(100));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying remove-dangling-deletes", e);
    }
  }

  /** Delete files in {@code deleteManifests} that the scan of {@code snapshotId} attaches to no data file. */
  static List<DeleteFile> find(
      Table table, long snapshotId, Collection<ManifestFile> deleteManifests) {
    Set<Key> applied = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        task.deletes().forEach(d -> applied.add(Key.of(d)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<DeleteFile> dangling = new ArrayList<>();
    for (ManifestFile manifest : deleteManifests) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile d : reader) {
          if (!applied.contains(Key.of(d))) {
            dangling.add(d);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return dangling;
  }

  private static long liveDeleteFiles(Table table, Collection<ManifestFile> deleteManifests) {
    long n = 0;
    for (ManifestFile m : deleteManifests) {
      n += m.addedFilesCount() + m.existingFilesCount();
    }
    return n;
  }

  /** Deletion vectors share a Puffin file, so a delete file is its path plus its blob's place in it. */
  private record Key(String path, Long offset, Long size) {
    static Key of(DeleteFile d) {
      return new Key(d.location(), d.contentOffset(), d.contentSizeInBytes());
    }
  }

  private static DanglingDeletesResult result(
      String name,
      boolean committed,
      Long snapshotId,
      long deleteFiles,
      List<DeleteFile> files,
      Table table) {
    List<DanglingDelete> out = new ArrayList<>();
    long records = 0;
    long bytes = 0;
    for (DeleteFile d : files) {
      String kind = d.content() == FileContent.EQUALITY_DELETES
          ? "equality"
          : ContentFileUtil.isDV(d) ? "deletion_vector" : "position";
      // a deletion vector's own size is its blob, not the whole Puffin file
      long size = ContentFileUtil.isDV(d) ? d.contentSizeInBytes() : d.fileSizeInBytes();
      out.add(new DanglingDelete(
          d.location(),
          kind,
          d.specId(),
          table.specs().get(d.specId()).partitionToPath(d.partition()),
          d.dataSequenceNumber(),
          d.recordCount(),
          size,
          d.referencedDataFile()));
      records += d.recordCount();
      bytes += size;
    }
    return new DanglingDeletesResult(
        name, committed, snapshotId, deleteFiles, out.size(), records, bytes, List.copyOf(out));
  }
}
