package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

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
      return TypeUtil.join(schema, new Schema(MetadataColumns.ROW_ID, MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER));
    }
    return schema;
  }

  static int formatVersion(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion();
  }

  static CloseableIterable<Record> read(Table table, FileScanTask task, Schema projection) {
    return read(table, task, projection, false);
  }

  /**
   * @param reuse let the reader reuse one record (and its nested containers) for every row: only
   *     for consumers that are done with a row before asking for the next
   */
  static CloseableIterable<Record> read(Table table, FileScanTask task, Schema projection, boolean reuse) {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, table.schema(), projection);
    Schema required = deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    org.apache.iceberg.io.InputFile input = table.io().newInputFile(task.file());
    // files written without field ids (migrated, or added from elsewhere) are read through the
    // table's name mapping, as Iceberg's own scans do; without it the reader would guess ids by position
    NameMapping mapping = nameMapping(table);
    // No residual filter: a rewrite must carry every live row of a selected file, not only the rows
    // that match --where (the filter selects files, it does not delete rows).
    CloseableIterable<Record> rows = switch (task.file().format()) {
      case PARQUET -> {
        Parquet.ReadBuilder read = Parquet.read(input)
            .project(required)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(required, fileSchema, constants))
            .split(task.start(), task.length());
        if (reuse) {
          read = read.reuseContainers();
        }
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      case AVRO -> {
        org.apache.iceberg.avro.Avro.ReadBuilder read = org.apache.iceberg.avro.Avro.read(input)
            .project(required)
            .createResolvingReader(schema -> org.apache.iceberg.data.avro.PlannedDataReader.create(schema, constants))
            .split(task.start(), task.length());
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      case ORC -> {
        org.apache.iceberg.orc.ORC.ReadBuilder read = org.apache.iceberg.orc.ORC.read(input)
            .project(required)
            .createReaderFunc(fileSchema -> org.apache.iceberg.data.orc.GenericOrcReader.buildReader(required, fileSchema, constants))
            .split(task.start(), task.length());
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      default -> throw new UnsupportedOperationException("reading " + task.file().format() + " data files is not supported");
    };
    return deletes.filter(rows);
  }

  /** The table's default name mapping ({@code schema.name-mapping.default}), or null when it has none. */
  static NameMapping nameMapping(Table table) {
    String json = table.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING);
    return json == null ? null : NameMappingParser.fromJson(json);
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
