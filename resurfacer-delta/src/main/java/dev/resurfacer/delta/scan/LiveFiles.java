package dev.resurfacer.delta.scan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** The data files of one snapshot, by Kernel's log replay (checkpoint plus commits, removes applied). */
public final class LiveFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LiveFiles() {}

  public static List<LiveFile> of(DeltaTable table, Snapshot snapshot) {
    List<LiveFile> out = new ArrayList<>();
    // add.partitionValues are keyed by physical name on a column-mapped table; LiveFile keys them
    // by column name
    Map<String, String> logicalNames = new HashMap<>();
    for (String c : snapshot.getPartitionColumnNames()) {
      logicalNames.put(KernelInternals.physicalName(snapshot.getSchema().get(c)), c);
    }
    try (CloseableIterator<FilteredColumnarBatch> batches =
        snapshot.getScanBuilder().build().getScanFiles(table.engine(), true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            Row scanFile = rows.next();
            Row add = scanFile.getStruct(Rows.index(scanFile, "add"));
            String path = Rows.string(add, "path");
            out.add(new LiveFile(
                path,
                table.storage().resolveAll(path),
                Rows.longOrNull(add, "size"),
                Rows.longOrNull(add, "modificationTime"),
                logical(Rows.stringMap(add, "partitionValues"), logicalNames),
                DeletionVectorRef.of(add, Rows.index(add, "deletionVector"), table.storage()),
                numRecords(Rows.string(add, "stats"))));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the file list of " + table.name(), e);
    }
    return out;
  }

  private static Map<String, String> logical(
      Map<String, String> physical, Map<String, String> logicalNames) {
    Map<String, String> out = new LinkedHashMap<>();
    physical.forEach((k, v) -> out.put(logicalNames.getOrDefault(k, k), v));
    return out;
  }

  static OptionalLong numRecords(String stats) {
    if (stats == null || stats.isBlank()) {
      return OptionalLong.empty();
    }
    try {
      JsonNode n = JSON.readTree(stats).get("numRecords");
      return n == null || !n.canConvertToLong()
          ? OptionalLong.empty()
          : OptionalLong.of(n.asLong());
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }
}
