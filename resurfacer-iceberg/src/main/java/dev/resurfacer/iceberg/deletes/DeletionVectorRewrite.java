package dev.resurfacer.iceberg.deletes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Format v3: turns the v2 position-delete files of a table into deletion vectors, one per data file,
 * without touching data files. Each live data file's vector is what Iceberg's scan applies to it today
 * (the delete files its {@code DeleteFileIndex} attaches, loaded by core's {@link BaseDeleteLoader}),
 * so no query changes. A data file that already has a vector is left alone: readers ignore v2
 * position files once a vector exists, so folding them in would resurrect nothing but could delete
 * rows readers see. The commit is a {@link RowDelta} validated from the planned snapshot: data files
 * removed meanwhile, delete files added meanwhile (a concurrent delete), vectors added for the same
 * data files, or inputs already removed fail it — no delete is ever lost.
 */
public final class DeletionVectorRewrite {
  private DeletionVectorRewrite() {}

  /**
   * What a conversion does: data files given a vector, v2 position-delete files removed (those applying
   * to nothing included), positions carried over.
   */
  public record Result(String table, boolean committed, long dataFiles, long positionDeleteFiles, long positions,
      long deletionVectors, Long snapshotId) {}

  public static Result run(Table table, boolean commit) {
    return run(table, commit, () -> {});
  }

  /** {@code beforeCommit} runs between writing the vectors and committing them (tests put a concurrent writer there). */
  static Result run(Table table, boolean commit, Runnable beforeCommit) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Result(table.name(), false, 0, 0, 0, 0, null);
    }
    List<DeleteFile> v2Files = Commits.liveDeleteFiles(table, base, file -> file.content() == FileContent.POSITION_DELETES && file.format() != FileFormat.PUFFIN);
    if (v2Files.isEmpty()) {
      return new Result(table.name(), false, 0, 0, 0, 0, base.snapshotId());
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    List<String> converted = new ArrayList<>();
    long positions = 0;
    DeletionVectors vectors = commit ? new DeletionVectors(table) : null;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        List<DeleteFile> positional = task.deletes().stream().filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
        if (positional.isEmpty() || positional.stream().anyMatch(d -> d.format() == FileFormat.PUFFIN)) {
          continue;
        }
        PositionDeleteIndex index = loader.loadPositionDeletes(positional, task.file().location());
        if (index.isEmpty()) {
          continue;
        }
        converted.add(task.file().location());
        positions += index.cardinality();
        if (vectors != null) {
          vectors.write(task.file().location(), index, task.spec(), task.file().partition());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (vectors == null) {
      return new Result(table.name(), false, converted.size(), v2Files.size(), positions, converted.size(), base.snapshotId());
    }
    List<DeleteFile> written = vectors.written();
    RowDelta delta = Commits.validatedDelta(table, base.snapshotId(), converted);
    written.forEach(delta::addDeletes);
    v2Files.forEach(delta::removeDeletes);
    beforeCommit.run();
    Commits.commitOrDelete(table, delta, written);
    table.refresh();
    return new Result(table.name(), true, converted.size(), v2Files.size(), positions, written.size(),
        table.currentSnapshot().snapshotId());
  }
}
