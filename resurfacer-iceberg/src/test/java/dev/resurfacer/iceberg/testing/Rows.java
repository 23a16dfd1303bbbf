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

  /** An order-independent multiset fingerprint of rows: sorted string forms, hashed. */
  public static List<String> sortedStrings(Table table) {
    return sortedStrings(table, null);
  }

  public static List<String> sortedStrings(Table table, Long snapshotId) {
    List<String> rows = new ArrayList<>();
    for (Record r : read(table, snapshotId)) {
      rows.add(r.toString());
    }
    rows.sort(null);
    return rows;
  }
}
