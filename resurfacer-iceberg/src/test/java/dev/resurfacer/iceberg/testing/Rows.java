package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reads a table's live rows with Iceberg's delete-aware generic reader: the oracle for row-level assertions. */
public final class Rows {
  private Rows() {}

  public static List<Record> read(Table table) {
    return read(table, null);
  }

  /** The live rows as of one snapshot (a tag's or branch's head, or any older snapshot). */
  public static List<Record> read(Table table, Long snapshotId) {
    List<Record> out = new ArrayList<>();
    var scan = IcebergGenerics.read(table);
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    try (CloseableIterable<Record> rows = scan.build()) {
      rows.forEach(r -> out.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * The table's rows as sorted strings, an order-independent form to compare before and after a
   * rewrite. Only the schema's columns are rendered: the delete-aware reader may append _pos.
   */
  public static List<String> sortedStrings(Table table) {
    return sortedStrings(read(table), table.schema().columns().size());
  }

  public static List<String> sortedStrings(Table table, long snapshotId) {
    return sortedStrings(
        read(table, snapshotId),
        table.schemas().get(table.snapshot(snapshotId).schemaId()).columns().size());
  }

  private static List<String> sortedStrings(List<Record> records, int width) {
    List<String> rows = new ArrayList<>();
    for (Record r : records) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < width; i++) {
        Object v = r.get(i);
        if (v instanceof byte[] bytes) {
          v = java.nio.ByteBuffer.wrap(bytes);
        }
        b.append(
                v instanceof java.nio.ByteBuffer buf
                    ? java.util.HexFormat.of()
                        .formatHex(org.apache.iceberg.util.ByteBuffers.toByteArray(buf))
                    : v)
            .append('|');
      }
      rows.add(b.toString());
    }
    rows.sort(null);
    return rows;
  }
}
