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
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** An order-independent multiset fingerprint of rows: sorted string forms, hashed. */
  public static List<String> sortedStrings(Table table) {
    List<String> rows = new ArrayList<>();
    for (Record r : read(table)) {
      rows.add(r.toString());
    }
    rows.sort(null);
    return rows;
  }
}
