package dev.resurfacer.iceberg.deletes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
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
  public record Result(
      String table,
      boolean committed,
      long dataFiles,
      long positionDeleteFiles,
      long positions,
      long deletionVectors,
      Long snapshotId) {}

  /** A live data file of the base snapshot and the v2 position-delete files its scan applies to it. */
  public record DataFileDeletes(
      String location,
      PartitionSpec spec,
      StructLike partition,
      List<DeleteFile> positionDeletes) {}

  /**
   * The conversion of one snapshot ({@code baseSnapshotId}, null for a table without one): every v2
   * position-delete file it has live, all removed, and the data files they apply to, each given the
   * vector its deletes name (none when they name none of its rows). It holds references: the deletes
   * are read when previewed or executed.
   */
  public record Plan(
      Table table,
      Long baseSnapshotId,
      List<DeleteFile> positionDeleteFiles,
      List<DataFileDeletes> dataFiles) {
    public Plan {
      positionDeleteFiles = List.copyOf(positionDeleteFiles);
      dataFiles = List.copyOf(dataFiles);
    }

    /** The result {@link #execute} would report, counted by reading the deletes as it does; writes and commits nothing. */
    public Result preview() {
      Converted converted = convert(this, (file, positions) -> {});
      return new Result(
          table.name(),
          false,
          converted.dataFiles().size(),
          positionDeleteFiles.size(),
          converted.positions(),
          converted.dataFiles().size(),
          baseSnapshotId);
    }
  }

  /** {@code beforeCommit} runs between writing the vectors and committing them (tests put a concurrent writer there). No production caller sets one. */
  record Seam(Runnable beforeCommit) {
    static final Seam NONE = new Seam(() -> {});
  }

  /** What {@link #execute} would convert in the current snapshot. Reads metadata only. */
  public static Plan plan(Table table) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Plan(table, null, List.of(), List.of());
    }
    List<DeleteFile> v2Files = Commits.liveDeleteFiles(
        table,
        base,
        file ->
            file.content() == FileContent.POSITION_DELETES && file.format() != FileFormat.PUFFIN);
    if (v2Files.isEmpty()) {
      return new Plan(table, base.snapshotId(), List.of(), List.of());
    }
    List<DataFileDeletes> dataFiles = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        List<DeleteFile> positional = task.deletes().stream()
            .filter(d -> d.content() == FileContent.POSITION_DELETES)
            .toList();
        if (!positional.isEmpty()
            && positional.stream().noneMatch(d -> d.format() == FileFormat.PUFFIN)) {
          dataFiles.add(new DataFileDeletes(
              task.file().location(), task.spec(), task.file().partition(), positional));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Plan(table, base.snapshotId(), v2Files, dataFiles);
  }

  /**
   * Writes the plan's vectors, each from its data file's deletes read now, and commits them with the
   * removal of the plan's position-delete files in one row delta validated from the plan's snapshot.
   */
  public static Result execute(Plan plan) {
    return execute(plan, Seam.NONE);
  }

  static Result execute(Plan plan, Seam seam) {
    Table table = plan.table();
    if (plan.positionDeleteFiles().isEmpty()) {
      return plan.preview();
    }
    DeletionVectors vectors = new DeletionVectors(table);
    Converted converted = convert(
        plan,
        (file, positions) ->
            vectors.write(file.location(), positions, file.spec(), file.partition()));
    List<DeleteFile> written = vectors.written();
    long snapshotId = Commits.replaceDeletes(
        table,
        plan.baseSnapshotId(),
        converted.dataFiles(),
        written,
        plan.positionDeleteFiles(),
        seam.beforeCommit());
    return new Result(
        table.name(),
        true,
        converted.dataFiles().size(),
        plan.positionDeleteFiles().size(),
        converted.positions(),
        written.size(),
        snapshotId);
  }

  /** The data files given a vector and the positions those vectors hold. */
  private record Converted(List<String> dataFiles, long positions) {}

  private static Converted convert(
      Plan plan, BiConsumer<DataFileDeletes, PositionDeleteIndex> write) {
    Table table = plan.table();
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    List<String> converted = new ArrayList<>();
    long positions = 0;
    for (DataFileDeletes file : plan.dataFiles()) {
      PositionDeleteIndex index =
          loader.loadPositionDeletes(file.positionDeletes(), file.location());
      if (index.isEmpty()) {
        continue;
      }
      converted.add(file.location());
      positions += index.cardinality();
      write.accept(file, index);
    }
    return new Converted(List.copyOf(converted), positions);
  }
}
