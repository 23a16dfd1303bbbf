package dev.resurfacer.iceberg.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Writes Parquet data and delete files for a table with Iceberg's own generic writers. Used by the
 * demo's ingestion and by tests that build real tables; nothing here commits.
 */
public final class TableWrites {
  private TableWrites() {}

  /** A row position in a data file, the unit of a position delete. */
  public record Position(String path, long pos) {}

  /** Splits records by the table's current spec and writes one data file per partition. */
  public static List<DataFile> writeData(Table table, List<Record> records) {
    PartitionSpec spec = table.spec();
    Map<PartitionKey, List<Record>> byPartition = groupByPartition(spec, table.schema(), records);
    List<DataFile> files = new ArrayList<>();
    byPartition.forEach((key, rows) -> files.add(writeData(table, spec, key, rows)));
    return files;
  }

  public static DataFile writeData(
      Table table, PartitionSpec spec, StructLike partition, List<Record> records) {
    OutputFile out = newFile(table, spec, partition, "data");
    try {
      DataWriter<Record> writer = Parquet.writeData(out)
          .forTable(table)
          .withSpec(spec)
          .withPartition(spec.isUnpartitioned() ? null : partition)
          .createWriterFunc(GenericParquetWriter::create)
          .overwrite()
          .build();
      try (writer) {
        for (Record r : records) {
          writer.write(r);
        }
      }
      return writer.toDataFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A Parquet position delete file (format v2 style) for positions in data files of one partition. */
  public static DeleteFile writePositionDeletes(
      Table table, PartitionSpec spec, StructLike partition, List<Position> positions) {
    OutputFile out = newFile(table, spec, partition, "pos-deletes");
    try {
      // not forTable(): it sets a row schema, and position deletes are written without row data
      PositionDeleteWriter<Record> writer = Parquet.writeDeletes(out)
          .setAll(table.properties())
          .metricsConfig(org.apache.iceberg.MetricsConfig.forPositionDelete())
          .withSpec(spec)
          .withPartition(spec.isUnpartitioned() ? null : partition)
          .overwrite()
          .buildPositionWriter();
      PositionDelete<Record> delete = PositionDelete.create();
      List<Position> sorted = new ArrayList<>(positions);
      sorted.sort(java.util.Comparator.comparing(Position::path).thenComparingLong(Position::pos));
      try (writer) {
        for (Position p : sorted) {
          writer.write(delete.set(p.path(), p.pos()));
        }
      }
      return writer.toDeleteFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An equality delete file in one partition; {@code rows} carry the values of {@code deleteSchema}. */
  public static DeleteFile writeEqualityDeletes(
      Table table,
      PartitionSpec spec,
      StructLike partition,
      Schema deleteSchema,
      List<Record> rows) {
    OutputFile out = newFile(table, spec, partition, "eq-deletes");
    int[] ids = deleteSchema.columns().stream()
        .mapToInt(org.apache.iceberg.types.Types.NestedField::fieldId)
        .toArray();
    try {
      EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(out)
          .forTable(table)
          .rowSchema(deleteSchema)
          .withSpec(spec)
          .withPartition(spec.isUnpartitioned() ? null : partition)
          .equalityFieldIds(ids)
          .createWriterFunc(GenericParquetWriter::create)
          .overwrite()
          .buildEqualityWriter();
      try (writer) {
        for (Record r : rows) {
          writer.write(r);
        }
      }
      return writer.toDeleteFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletion vectors (format v3): one Puffin file holding a vector per referenced data file. */
  public static List<DeleteFile> writeDeletionVectors(
      Table table, Map<DataFile, List<Long>> positions) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PUFFIN)
        .build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> null);
    try (writer) {
      positions.forEach((file, rows) -> {
        for (long pos : rows) {
          writer.delete(file.location(), pos, table.specs().get(file.specId()), file.partition());
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles();
  }

  /**
   * The delete of one row of a scan task's data file as a merge-on-read engine writes it, added to
   * {@code delta}: on v3 a deletion vector that replaces the file's current one (merged with it), on
   * v2 a position-delete file naming that row.
   */
  public static void deleteRow(
      Table table,
      org.apache.iceberg.FileScanTask task,
      long pos,
      org.apache.iceberg.RowDelta delta) {
    String file = task.file().location();
    PartitionSpec spec = table.specs().get(task.file().specId());
    if (((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion()
        < 3) {
      delta.addDeletes(writePositionDeletes(
          table, spec, task.file().partition(), List.of(new Position(file, pos))));
      return;
    }
    DeleteFile old = task.deletes().stream()
        .filter(org.apache.iceberg.util.ContentFileUtil::isDV)
        .findFirst()
        .orElse(null);
    org.apache.iceberg.deletes.PositionDeleteIndex previous = old == null
        ? null
        : new org.apache.iceberg.data.BaseDeleteLoader(d -> table.io().newInputFile(d))
            .loadPositionDeletes(List.of(old), file);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PUFFIN)
        .build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, p -> previous);
    try (writer) {
      writer.delete(file, pos, spec, task.file().partition());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    writer.result().deleteFiles().forEach(delta::addDeletes);
    if (old != null) {
      delta.removeDeletes(old);
    }
  }

  /**
   * Commits the delete of one row, plus {@code newRows} (an update's new version; empty for a
   * delete), in one row delta validated from {@code base} as a merge-on-read engine validates it:
   * a concurrent removal of the file or a conflicting delete fails the commit.
   */
  public static void commitRowChange(
      Table table,
      org.apache.iceberg.Snapshot base,
      org.apache.iceberg.FileScanTask task,
      long pos,
      List<Record> newRows) {
    org.apache.iceberg.RowDelta delta = table.newRowDelta();
    deleteRow(table, task, pos, delta);
    if (!newRows.isEmpty()) {
      writeData(table, newRows).forEach(delta::addRows);
    }
    delta
        .validateFromSnapshot(base.snapshotId())
        .validateDataFilesExist(List.of(task.file().location()))
        .validateDeletedFiles()
        .validateNoConflictingDeleteFiles()
        .commit();
  }

  public static Map<PartitionKey, List<Record>> groupByPartition(
      PartitionSpec spec, Schema schema, List<Record> records) {
    Map<PartitionKey, List<Record>> out = new LinkedHashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    for (Record r : records) {
      PartitionKey key = new PartitionKey(spec, schema);
      key.partition(wrapper.wrap(r));
      out.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    return out;
  }

  private static OutputFile newFile(
      Table table, PartitionSpec spec, StructLike partition, String kind) {
    String name = kind + "-" + UUID.randomUUID() + ".parquet";
    String location = spec.isUnpartitioned()
        ? table.locationProvider().newDataLocation(name)
        : table.locationProvider().newDataLocation(spec, partition, name);
    return table.io().newOutputFile(location);
  }
}
