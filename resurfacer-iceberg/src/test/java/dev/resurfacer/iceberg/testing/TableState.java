package dev.resurfacer.iceberg.testing;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What a table logically holds: the rows of every snapshot and of every ref's head, as sorted
 * strings. Maintenance may drop snapshots and move no ref; any snapshot or ref it keeps must read
 * exactly what it read before.
 */
public record TableState(
    String metadataLocation,
    Map<Long, List<String>> snapshotRows,
    Map<String, List<String>> refRows) {

  public static TableState capture(Table table) {
    table.refresh();
    Map<Long, List<String>> snapshots = new TreeMap<>();
    for (Snapshot s : table.snapshots()) {
      snapshots.put(s.snapshotId(), Rows.sortedStrings(table, s.snapshotId()));
    }
    Map<String, List<String>> refs = new TreeMap<>();
    table.refs().forEach((name, ref) -> refs.put(name, snapshots.get(ref.snapshotId())));
    return new TableState(metadataLocation(table), snapshots, refs);
  }

  public static String metadataLocation(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }
}
