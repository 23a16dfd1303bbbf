package dev.resurfacer.iceberg.compact;

import dev.resurfacer.iceberg.read.DataFileRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Reads the live rows of scan tasks with Iceberg's own delete-aware generic reader. It is the
 * fallback runner's read path and the independent oracle that verifies the DuckDB runner: a bug in
 * one delete implementation cannot hide behind the same bug in the other.
 */
final class LiveRows {
  private LiveRows() {}

  /** The table schema plus the v3 row-lineage columns when the table tracks them. */
  static Schema rewriteSchema(Table table) {
    Schema schema = table.schema();
    if (formatVersion(table) >= 3) {
      return TypeUtil.join(
          schema, new Schema(MetadataColumns.ROW_ID, MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER));
    }
    return schema;
  }

  static int formatVersion(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table)
        .operations()
        .current()
        .formatVersion();
  }

  static CloseableIterable<Record> read(Table table, FileScanTask task, Schema projection) {
    return read(table, task, projection, false);
  }

  /**
   * @param reuse let the reader reuse one record (and its nested containers) for every row: only
   *     for consumers that are done with a row before asking for the next
   */
  static CloseableIterable<Record> read(
      Table table, FileScanTask task, Schema projection, boolean reuse) {
    GenericDeleteFilter deletes =
        new GenericDeleteFilter(table.io(), task, table.schema(), projection);
    Schema required = deletes.requiredSchema();
    // No residual filter: a rewrite must carry every live row of a selected file, not only the rows
    // that match --where (the filter selects files, it does not delete rows).
    return deletes.filter(DataFileRows.read(table, task, required, reuse));
  }

  /** Live rows across tasks, reading one narrow column (plus what delete application needs). */
  static long count(Table table, List<FileScanTask> tasks) {
    Schema narrow = narrowProjection(table.schema());
    long n = 0;
    for (FileScanTask task : tasks) {
      try (CloseableIterable<Record> rows = read(table, task, narrow)) {
        for (Record ignored : rows) {
          n++;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return n;
  }

  private static Schema narrowProjection(Schema schema) {
    for (Types.NestedField f : schema.columns()) {
      if (f.type().isPrimitiveType()) {
        return new Schema(f);
      }
    }
    return new Schema(schema.columns().get(0));
  }

  static List<Record> readAll(Table table, List<FileScanTask> tasks, Schema projection) {
    List<Record> out = new ArrayList<>();
    for (FileScanTask task : tasks) {
      try (CloseableIterable<Record> rows = read(table, task, projection)) {
        rows.forEach(r -> out.add(r.copy()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
