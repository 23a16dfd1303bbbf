package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * The rows of a freshly written, not yet committed Parquet file as they are stored: every field id, and
 * the row-lineage values the rewrite wrote, null included. Iceberg's reader would substitute an
 * inherited value for a null lineage value, which an uncommitted file does not have yet.
 */
final class StoredRows {
  /**
   * Far below any row id or sequence number, with room for every row position of a file above it: the
   * reader inherits a null row id as this plus the row's position. Row ids and sequence numbers are
   * never negative, so a negative value read marks exactly the nulls the file holds.
   */
  private static final long STORED_NULL = Long.MIN_VALUE / 2;

  @FunctionalInterface
  interface RowAt {
    void accept(long pos, Record row);
  }

  private StoredRows() {}

  /** Calls {@code action} with each row's position in the file and the row (a reused container). */
  static void forEach(Table table, String location, Schema schema, RowAt action) {
    // Iceberg's reader reads a lineage column only when it has an inherited value to fall back on,
    // and returns the fallback for a null it finds.
    Map<Integer, Object> lineage = Map.of(
        MetadataColumns.ROW_ID.fieldId(), STORED_NULL,
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(), STORED_NULL);
    List<Integer> lineagePositions = new ArrayList<>();
    for (int i = 0; i < schema.columns().size(); i++) {
      if (lineage.containsKey(schema.columns().get(i).fieldId())) {
        lineagePositions.add(i);
      }
    }
    try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(location))
        .project(schema)
        .createReaderFunc(
            fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema, lineage))
        .reuseContainers()
        .build()) {
      long pos = 0;
      for (Record row : rows) {
        for (int p : lineagePositions) {
          if (row.get(p) instanceof Long v && v < 0) {
            row.set(p, null);
          }
        }
        action.accept(pos++, row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
