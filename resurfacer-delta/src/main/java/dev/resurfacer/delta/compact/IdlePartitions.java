package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogActions;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which partitions a writer changed within the last {@code idle} ({@code min-partition-idle}): those
 * with an {@code add} or {@code remove} of {@code dataChange = true} in a commit up to the snapshot
 * read and written since the cutoff (by the commit file's time, as Delta dates a version without
 * in-commit timestamps). OPTIMIZE commits ({@code dataChange = false}) change no row and do not count.
 *
 * @param busy the logical partition values of every partition changed since the cutoff
 */
record IdlePartitions(Duration idle, Set<Map<String, String>> busy) {
  private static final StructType CHANGE = new StructType()
      .add("partitionValues", new MapType(StringType.STRING, StringType.STRING, true))
      .add("dataChange", BooleanType.BOOLEAN);
  private static final StructType SCHEMA =
      new StructType().add("add", CHANGE).add("remove", CHANGE);

  static IdlePartitions of(DeltaTable table, Snapshot snapshot, Duration idle, long nowMillis) {
    long cutoff = nowMillis - idle.toMillis();
    Map<String, String> logicalNames = new HashMap<>();
    for (String c : snapshot.getPartitionColumnNames()) {
      logicalNames.put(KernelInternals.physicalName(snapshot.getSchema().get(c)), c);
    }
    Set<Map<String, String>> busy = new HashSet<>();
    for (LogFile commit : DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT)) {
      if (commit.version() > snapshot.getVersion() || commit.modificationTime() < cutoff) {
        continue;
      }
      LogActions.lines(table, commit, SCHEMA, line -> {
        for (int i = 0; i < 2; i++) {
          if (!line.isNullAt(i)) {
            Row change = line.getStruct(i);
            if (change.isNullAt(1) || change.getBoolean(1)) {
              busy.add(partition(change, logicalNames));
            }
          }
        }
      });
    }
    return new IdlePartitions(idle, Set.copyOf(busy));
  }

  private static Map<String, String> partition(Row change, Map<String, String> logicalNames) {
    Map<String, String> out = new LinkedHashMap<>();
    if (change.isNullAt(0)) {
      return out;
    }
    MapValue m = change.getMap(0);
    for (int k = 0; k < m.getSize(); k++) {
      String physical = m.getKeys().getString(k);
      out.put(
          logicalNames.getOrDefault(physical, physical),
          m.getValues().isNullAt(k) ? null : m.getValues().getString(k));
    }
    return out;
  }

  /** Whether a writer changed the partition with these (logical) values since the cutoff. */
  boolean busy(Map<String, String> partitionValues) {
    return busy.contains(partitionValues);
  }
}
