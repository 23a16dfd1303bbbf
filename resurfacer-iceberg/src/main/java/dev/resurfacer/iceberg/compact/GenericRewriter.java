package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * Rewrites a group with Iceberg's generic reader and writer, one row at a time: slower than DuckDB
 * but faithful for every type and able to repartition into another spec. Memory stays bounded by
 * one open Parquet writer per output partition.
 */
final class GenericRewriter implements GroupRewriter {
  @Override
  public String name() {
    return "generic";
  }

  @Override
  public List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings) {
    Schema schema = LiveRows.rewriteSchema(table);
    PartitionSpec spec = table.specs().get(group.outputSpecId());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    PartitionKey key = new PartitionKey(spec, schema);
    Map<PartitionKey, Rolling> writers = new LinkedHashMap<>();
    List<DataFile> written = new ArrayList<>();
    org.apache.iceberg.SortOrder stamp = settings.ordering().stamp(table);
    java.util.function.Consumer<Record> sink = row -> {
      key.partition(wrapper.wrap(row));
      Rolling w = writers.get(key);
      if (w == null) {
        PartitionKey copy = key.copy();
        w = new Rolling(table, spec, copy, schema, settings.targetFileSizeBytes(), stamp, written);
        writers.put(copy, w);
      }
      try {
        w.write(row);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try {
      if (settings.ordering() instanceof ResolvedOrdering.None) {
        for (FileScanTask task : group.fileScanTasks()) {
          try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema)) {
            rows.forEach(sink);
          }
        }
      } else {
        try (ExternalSort sort = new ExternalSort(
            schema, settings.ordering(), settings.memoryBytes() / 2, settings.scratchDir())) {
          for (FileScanTask task : group.fileScanTasks()) {
            try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema)) {
              rows.forEach(sort::add);
            }
          }
          sort.drainTo(sink);
        }
      }
      for (Rolling w : writers.values()) {
        w.close();
      }
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      writers.values().forEach(Rolling::abort);
      written.forEach(f -> table.io().deleteFile(f.location()));
      throw e;
    }
  }

  /** A Parquet writer for one partition that starts a new file at the target size. */
  private static final class Rolling {
    private static final int SIZE_CHECK_EVERY = 1000;
    private final Table table;
    private final PartitionSpec spec;
    private final StructLike partition;
    private final Schema schema;
    private final long targetBytes;
    private final org.apache.iceberg.SortOrder sortOrder;
    private final List<DataFile> written;
    private DataWriter<Record> current;
    private String currentLocation;
    private long rowsInFile;

    Rolling(
        Table table,
        PartitionSpec spec,
        StructLike partition,
        Schema schema,
        long targetBytes,
        org.apache.iceberg.SortOrder sortOrder,
        List<DataFile> written) {
      this.table = table;
      this.spec = spec;
      this.partition = partition;
      this.schema = schema;
      this.targetBytes = targetBytes;
      this.sortOrder = sortOrder;
      this.written = written;
    }

    void write(Record row) throws IOException {
      if (current == null) {
        open();
      }
      current.write(row);
      rowsInFile++;
      if (rowsInFile % SIZE_CHECK_EVERY == 0 && current.length() >= targetBytes) {
        close();
      }
    }

    private void open() throws IOException {
      String name = "resurfacer-" + UUID.randomUUID() + ".parquet";
      currentLocation = spec.isUnpartitioned()
          ? table.locationProvider().newDataLocation(name)
          : table.locationProvider().newDataLocation(spec, partition, name);
      OutputFile out = table.io().newOutputFile(currentLocation);
      current = Parquet.writeData(out)
          .forTable(table)
          .schema(schema)
          .withSpec(spec)
          .withPartition(spec.isUnpartitioned() ? null : partition)
          .createWriterFunc(GenericParquetWriter::create)
          .withSortOrder(sortOrder == null ? org.apache.iceberg.SortOrder.unsorted() : sortOrder)
          .build();
      rowsInFile = 0;
    }

    void close() throws IOException {
      if (current != null) {
        current.close();
        written.add(current.toDataFile());
        current = null;
      }
    }

    void abort() {
      if (current != null) {
        try {
          current.close();
        } catch (IOException | RuntimeException ignored) {
          // the file is deleted next; its content no longer matters
        }
        table.io().deleteFile(currentLocation);
        current = null;
      }
    }
  }
}
