package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.iceberg.read.DataFileRows;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
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
  public record Result(String table, boolean committed, long dataFiles, long equalityDeleteFiles, long deletedRows,
      long writtenDeleteFiles, boolean deletionVectors, Long snapshotId) {}

  public static Result run(Table table, boolean commit) {
    return run(table, commit, () -> {});
  }

  static Result run(Table table, boolean commit, Runnable beforeCommit) {
    table.refresh();
    boolean vectors = ((HasTableOperations) table).operations().current().formatVersion() >= 3;
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Result(table.name(), false, 0, 0, 0, 0, vectors, null);
    }
    List<DeleteFile> equalityFiles = Commits.liveDeleteFiles(table, base, file -> file.content() == FileContent.EQUALITY_DELETES);
    if (equalityFiles.isEmpty()) {
      return new Result(table.name(), false, 0, 0, 0, 0, vectors, base.snapshotId());
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(file -> table.io().newInputFile(file));
    List<String> resolved = new ArrayList<>();
    List<DeleteFile> replacedVectors = new ArrayList<>();
    List<DeleteFile> written = new ArrayList<>();
    long deletedRows = 0;
    try (DeletionVectors dvs = new DeletionVectors(table);
        CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.deletes().stream().noneMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
          continue;
        }
        PositionDeleteIndex deleted = equalityDeleted(table, task);
        resolved.add(task.file().location());
        deletedRows += deleted.cardinality();
        if (!commit || deleted.isEmpty()) {
          continue;
        }
        if (vectors) {
          List<DeleteFile> positional = task.deletes().stream().filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
          if (!positional.isEmpty()) {
            deleted.merge(loader.loadPositionDeletes(positional, task.file().location()));
          }
          positional.stream().filter(d -> d.format() == org.apache.iceberg.FileFormat.PUFFIN).forEach(replacedVectors::add);
          dvs.write(task.file().location(), deleted, task.spec(), task.file().partition());
        } else {
          List<Position> positions = new ArrayList<>((int) Math.min(deleted.cardinality(), Integer.MAX_VALUE));
          deleted.forEach(pos -> positions.add(new Position(task.file().location(), pos)));
          written.add(TableWrites.writePositionDeletes(table, task.spec(), task.file().partition(), positions));
        }
      }
      if (commit) {
        written.addAll(dvs.written());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!commit) {
      return new Result(table.name(), false, resolved.size(), equalityFiles.size(), deletedRows, 0, vectors, base.snapshotId());
    }
    RowDelta delta = Commits.validatedDelta(table, base.snapshotId(), resolved);
    written.forEach(delta::addDeletes);
    equalityFiles.forEach(delta::removeDeletes);
    replacedVectors.forEach(delta::removeDeletes);
    beforeCommit.run();
    Commits.commitOrDelete(table, delta, written);
    table.refresh();
    return new Result(table.name(), true, resolved.size(), equalityFiles.size(), deletedRows, written.size(), vectors,
        table.currentSnapshot().snapshotId());
  }

  /** Positions in the task's data file whose rows its equality deletes remove (position deletes not applied). */
  private static PositionDeleteIndex equalityDeleted(Table table, FileScanTask task) {
    GenericDeleteFilter filter = new GenericDeleteFilter(table.io(), task, table.schema(), new Schema(MetadataColumns.ROW_POSITION));
    Schema required = filter.requiredSchema();
    int posIndex = required.columns().indexOf(required.findField(MetadataColumns.ROW_POSITION.fieldId()));
    CloseableIterable<Record> rows = filter.findEqualityDeleteRows(DataFileRows.read(table, task, required, true));
    return Deletes.toPositionIndex(CloseableIterable.transform(rows, row -> (Long) row.get(posIndex)));
  }
}
