package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.iceberg.read.DataFileRows;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Resolves equality deletes into positions, so readers stop joining them at query time; data files
 * are never rewritten. Every live data file an equality delete applies to — by the scan's own rules
 * (sequence numbers, partition scope, global deletes), as {@code DeleteFileIndex} attaches them — is
 * read once, and Iceberg's {@link GenericDeleteFilter#findEqualityDeleteRows} names the rows they
 * delete. Format v3 gets one deletion vector per data file (merged with what already applied to it);
 * v2 gets one file-scoped position-delete file per data file. Every equality-delete file of the planned
 * snapshot is then removed in one {@link RowDelta} validated from that snapshot: data files removed
 * meanwhile, deletes or vectors added meanwhile, or inputs already removed fail the commit.
 *
 * <p>Memory: one data file at a time; the equality-delete sets that apply to it are held while it is
 * read, as Iceberg's reader holds them.
 */
public final class EqualityDeleteConversion {
  private EqualityDeleteConversion() {}

  /** Data files resolved, equality-delete files replaced, rows they delete, delete files written. */
  public record Result(
      String table,
      boolean committed,
      long dataFiles,
      long equalityDeleteFiles,
      long deletedRows,
      long writtenDeleteFiles,
      boolean deletionVectors,
      Long snapshotId) {}

  /**
   * The conversion of one snapshot ({@code baseSnapshotId}, null for a table without one): every
   * equality-delete file it has live, all removed, and the scan tasks of the data files they apply to,
   * each carrying the delete files its scan attaches. It holds references: data and deletes are read
   * when previewed or executed.
   */
  public record Plan(
      Table table,
      boolean deletionVectors,
      Long baseSnapshotId,
      List<DeleteFile> equalityDeleteFiles,
      List<FileScanTask> dataFiles) {
    public Plan {
      equalityDeleteFiles = List.copyOf(equalityDeleteFiles);
      dataFiles = List.copyOf(dataFiles);
    }

    /**
     * The result {@link #execute} would report, its deleted rows found by reading each data file as it
     * does; writes and commits nothing.
     */
    public Result preview() {
      Resolved resolved = resolve(this, (task, deleted) -> {});
      return new Result(
          table.name(),
          false,
          resolved.dataFiles().size(),
          equalityDeleteFiles.size(),
          resolved.deletedRows(),
          0,
          deletionVectors,
          baseSnapshotId);
    }
  }

  /** {@code beforeCommit} runs between writing the deletes and committing them (tests put a concurrent writer there). No production caller sets one. */
  record Seam(Runnable beforeCommit) {
    static final Seam NONE = new Seam(() -> {});
  }

  /** What {@link #execute} would convert in the current snapshot. Reads metadata only. */
  public static Plan plan(Table table) {
    table.refresh();
    boolean vectors = ((HasTableOperations) table).operations().current().formatVersion() >= 3;
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Plan(table, vectors, null, List.of(), List.of());
    }
    List<DeleteFile> equalityFiles = Commits.liveDeleteFiles(
        table, base, file -> file.content() == FileContent.EQUALITY_DELETES);
    if (equalityFiles.isEmpty()) {
      return new Plan(table, vectors, base.snapshotId(), List.of(), List.of());
    }
    List<FileScanTask> dataFiles = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
          dataFiles.add(task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Plan(table, vectors, base.snapshotId(), equalityFiles, dataFiles);
  }

  /**
   * Resolves the plan's data files against their deletes, read now, writes what replaces them, and
   * commits it with the removal of the plan's equality-delete files in one row delta validated from
   * the plan's snapshot.
   */
  public static Result execute(Plan plan) {
    return execute(plan, Seam.NONE);
  }

  static Result execute(Plan plan, Seam seam) {
    Table table = plan.table();
    if (plan.equalityDeleteFiles().isEmpty()) {
      return plan.preview();
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    List<DeleteFile> replacedVectors = new ArrayList<>();
    List<DeleteFile> written = new ArrayList<>();
    Resolved resolved;
    try (DeletionVectors dvs = new DeletionVectors(table)) {
      resolved = resolve(plan, (task, deleted) -> {
        if (plan.deletionVectors()) {
          List<DeleteFile> positional = task.deletes().stream()
              .filter(d -> d.content() == FileContent.POSITION_DELETES)
              .toList();
          if (!positional.isEmpty()) {
            deleted.merge(loader.loadPositionDeletes(positional, task.file().location()));
          }
          positional.stream()
              .filter(d -> d.format() == FileFormat.PUFFIN)
              .forEach(replacedVectors::add);
          dvs.write(task.file().location(), deleted, task.spec(), task.file().partition());
        } else {
          List<Position> positions =
              new ArrayList<>((int) Math.min(deleted.cardinality(), Integer.MAX_VALUE));
          deleted.forEach(pos -> positions.add(new Position(task.file().location(), pos)));
          written.add(TableWrites.writePositionDeletes(
              table, task.spec(), task.file().partition(), positions));
        }
      });
      written.addAll(dvs.written());
    }
    List<DeleteFile> replaced = new ArrayList<>(plan.equalityDeleteFiles());
    replaced.addAll(replacedVectors);
    long snapshotId = Commits.replaceDeletes(
        table, plan.baseSnapshotId(), resolved.dataFiles(), written, replaced, seam.beforeCommit());
    return new Result(
        table.name(),
        true,
        resolved.dataFiles().size(),
        plan.equalityDeleteFiles().size(),
        resolved.deletedRows(),
        written.size(),
        plan.deletionVectors(),
        snapshotId);
  }

  /** The data files resolved and the rows their equality deletes remove. */
  private record Resolved(List<String> dataFiles, long deletedRows) {}

  /** Finds each planned data file's equality-deleted positions and hands the non-empty ones to {@code replace}. */
  private static Resolved resolve(
      Plan plan, BiConsumer<FileScanTask, PositionDeleteIndex> replace) {
    List<String> resolved = new ArrayList<>();
    long deletedRows = 0;
    for (FileScanTask task : plan.dataFiles()) {
      PositionDeleteIndex deleted = equalityDeleted(plan.table(), task);
      resolved.add(task.file().location());
      deletedRows += deleted.cardinality();
      if (!deleted.isEmpty()) {
        replace.accept(task, deleted);
      }
    }
    return new Resolved(List.copyOf(resolved), deletedRows);
  }

  /** Positions in the task's data file whose rows its equality deletes remove (position deletes not applied). */
  private static PositionDeleteIndex equalityDeleted(Table table, FileScanTask task) {
    GenericDeleteFilter filter = new GenericDeleteFilter(
        table.io(), task, table.schema(), new Schema(MetadataColumns.ROW_POSITION));
    Schema required = filter.requiredSchema();
    int posIndex =
        required.columns().indexOf(required.findField(MetadataColumns.ROW_POSITION.fieldId()));
    CloseableIterable<Record> rows =
        filter.findEqualityDeleteRows(DataFileRows.read(table, task, required, true));
    return Deletes.toPositionIndex(
        CloseableIterable.transform(rows, row -> (Long) row.get(posIndex)));
  }
}
