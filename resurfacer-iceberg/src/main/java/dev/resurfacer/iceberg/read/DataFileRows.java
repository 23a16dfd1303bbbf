package dev.resurfacer.iceberg.read;

import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Every row of a scan task's data file, deletes not applied, read with Iceberg's generic readers
 * (Parquet, Avro, ORC) into {@code projection}; metadata columns such as {@code _pos} are filled by the
 * readers. Callers apply deletes themselves (Iceberg's {@code GenericDeleteFilter}).
 */
public final class DataFileRows {
  private DataFileRows() {}

  /**
   * @param reuse let the reader reuse one record (and its nested containers) for every row: only
   *     for consumers that are done with a row before asking for the next
   */
  public static CloseableIterable<Record> read(
      Table table, FileScanTask task, Schema projection, boolean reuse) {
    Schema required = projection;
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    org.apache.iceberg.io.InputFile input = table.io().newInputFile(task.file());
    // files written without field ids (migrated, or added from elsewhere) are read through the
    // table's name mapping, as Iceberg's own scans do; without it the reader would guess ids by
    // position
    NameMapping mapping = nameMapping(table);
    CloseableIterable<Record> rows = switch (task.file().format()) {
      case PARQUET -> {
        Parquet.ReadBuilder read = Parquet.read(input)
            .project(required)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(required, fileSchema, constants))
            .split(task.start(), task.length());
        if (reuse) {
          read = read.reuseContainers();
        }
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      case AVRO -> {
        org.apache.iceberg.avro.Avro.ReadBuilder read = org.apache.iceberg.avro.Avro.read(input)
            .project(required)
            .createResolvingReader(
                schema -> org.apache.iceberg.data.avro.PlannedDataReader.create(schema, constants))
            .split(task.start(), task.length());
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      case ORC -> {
        org.apache.iceberg.orc.ORC.ReadBuilder read = org.apache
            .iceberg
            .orc
            .ORC
            .read(input)
            .project(required)
            .createReaderFunc(
                fileSchema -> org.apache.iceberg.data.orc.GenericOrcReader.buildReader(
                    required, fileSchema, constants))
            .split(task.start(), task.length());
        yield (mapping == null ? read : read.withNameMapping(mapping)).build();
      }
      default ->
        throw new UnsupportedOperationException(
            "reading " + task.file().format() + " data files is not supported");
    };
    return rows;
  }

  /** The table's default name mapping ({@code schema.name-mapping.default}), or null when it has none. */
  public static NameMapping nameMapping(Table table) {
    String json = table.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING);
    return json == null ? null : NameMappingParser.fromJson(json);
  }
}
