package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogActions;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
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
      List<String> found = new ArrayList<>();
      LogActions.lines(table, commit, SCHEMA, action -> {
        if (found.isEmpty()) {
          conflict(table, commit, action, inputs).ifPresent(found::add);
        }
      });
      if (!found.isEmpty()) {
        return Optional.of(found.get(0));
      }
    }
    return Optional.empty();
  }

  private static Optional<String> conflict(DeltaTable table, LogFile commit, Row action, Set<StoredFile> inputs) {
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
    return Optional.empty();
  }
}
