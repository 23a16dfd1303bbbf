package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What commits after the version a compaction read did to its inputs. Kernel 4.4.0's conflict
 * check only sees two commits removing the same file. A concurrent DELETE, UPDATE or MERGE that
 * adds a deletion vector to an input (remove + add of the same path) is carried onto the bin's new
 * files ({@link CarriedVectors}); an input removed for good, or a metadata or protocol change, stops
 * the commit, or deleted rows would come back from the rewritten file.
 */
final class ConcurrentChanges {
  private static final StructType SCHEMA = new StructType()
      .add("add", KernelInternals.addActionSchema())
      .add("remove", new StructType().add("path", StringType.STRING))
      .add("metaData", new StructType().add("id", StringType.STRING))
      .add("protocol", new StructType().add("minReaderVersion", IntegerType.INTEGER));

  /**
   * @param refusal why the inputs can no longer be replaced, when they cannot
   * @param readded each input a later version re-added, with the {@code add} struct the newest
   *     version holds for it (its new deletion vector)
   */
  record Changes(Optional<String> refusal, Map<StoredFile, Row> readded) {
    static Changes refused(String why) {
      return new Changes(Optional.of(why), Map.of());
    }
  }

  private ConcurrentChanges() {}

  /** What the commits after {@code readVersion} did to {@code inputs}. */
  static Changes since(DeltaTable table, long readVersion, Set<StoredFile> inputs) {
    List<LogFile> commits = DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() > readVersion)
        .toList();
    // an input's state after each commit: its newest add struct, or absent once removed
    Map<StoredFile, Optional<Row>> state = new LinkedHashMap<>();
    Map<StoredFile, String> removedBy = new HashMap<>();
    for (LogFile commit : commits) {
      List<String> refusals = new ArrayList<>();
      Map<StoredFile, Row> adds = new LinkedHashMap<>();
      List<StoredFile> removes = new ArrayList<>();
      LogActions.lines(table, commit, SCHEMA, action -> {
        if (!action.isNullAt(0)) {
          StoredFile f = table
              .storage()
              .resolve(
                  action.getStruct(0).getString(action.getStruct(0).getSchema().indexOf("path")));
          if (inputs.contains(f)) {
            adds.put(f, action.getStruct(0));
          }
        }
        if (!action.isNullAt(1)) {
          StoredFile f = table.storage().resolve(action.getStruct(1).getString(0));
          if (inputs.contains(f)) {
            removes.add(f);
            removedBy.put(
                f,
                "version " + commit.version() + " removed input "
                    + action.getStruct(1).getString(0));
          }
        }
        if (!action.isNullAt(2)) {
          refusals.add("version " + commit.version() + " changed the table's metadata");
        }
        if (!action.isNullAt(3)) {
          refusals.add("version " + commit.version() + " changed the table's protocol");
        }
      });
      if (!refusals.isEmpty()) {
        return Changes.refused(refusals.get(0));
      }
      // a commit that re-adds a path also removes its previous add: the add is what stays
      removes.forEach(f -> state.put(f, Optional.empty()));
      adds.forEach((f, add) -> state.put(f, Optional.of(add)));
    }
    Map<StoredFile, Row> readded = new LinkedHashMap<>();
    for (var e : state.entrySet()) {
      if (e.getValue().isEmpty()) {
        return Changes.refused(removedBy.get(e.getKey()) + " (not re-added)");
      }
      readded.put(e.getKey(), e.getValue().get());
    }
    return new Changes(Optional.empty(), readded);
  }
}
