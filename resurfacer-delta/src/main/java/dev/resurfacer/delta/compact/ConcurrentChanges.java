package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import dev.resurfacer.storage.StoredFile;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What commits after the version a compaction read did to its inputs. Kernel 4.4.0's conflict
 * check only sees two commits removing the same file; a concurrent DELETE that adds a deletion
 * vector to an input (remove + add of the same path) or a metadata or protocol change must also
 * stop the commit, or the deleted rows would come back from the rewritten file.
 */
final class ConcurrentChanges {
  private static final StructType SCHEMA = new StructType()
      .add("add", new StructType().add("path", StringType.STRING))
      .add("remove", new StructType().add("path", StringType.STRING))
      .add("metaData", new StructType().add("id", StringType.STRING))
      .add("protocol", new StructType().add("minReaderVersion", IntegerType.INTEGER));

  private ConcurrentChanges() {}

  /** Why the inputs can no longer be replaced, or empty when no commit after {@code readVersion} touched them. */
  static Optional<String> conflict(DeltaTable table, long readVersion, Set<StoredFile> inputs) {
    List<LogFile> commits = DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() > readVersion).toList();
    for (LogFile commit : commits) {
      FileStatus status = FileStatus.of(table.storage().kernelPath(commit.path()), commit.size(), commit.modificationTime());
      try (CloseableIterator<ColumnarBatch> batches =
          table.engine().getJsonHandler().readJsonFiles(KernelIterators.of(List.of(status)), SCHEMA, Optional.empty())) {
        while (batches.hasNext()) {
          try (CloseableIterator<Row> rows = batches.next().getRows()) {
            while (rows.hasNext()) {
              Row action = rows.next();
              for (int i = 0; i < 2; i++) {
                if (!action.isNullAt(i) && inputs.contains(table.storage().resolve(action.getStruct(i).getString(0)))) {
                  return Optional.of("version " + commit.version() + " changed input " + action.getStruct(i).getString(0)
                      + " (" + (i == 0 ? "re-added, e.g. with a new deletion vector" : "removed") + ")");
                }
              }
              if (!action.isNullAt(2)) {
                return Optional.of("version " + commit.version() + " changed the table's metadata");
              }
              if (!action.isNullAt(3)) {
                return Optional.of("version " + commit.version() + " changed the table's protocol");
              }
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read commit " + commit.path(), e);
      }
    }
    return Optional.empty();
  }
}
