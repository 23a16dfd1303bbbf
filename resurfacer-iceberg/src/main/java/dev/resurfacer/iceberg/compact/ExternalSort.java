package dev.resurfacer.iceberg.compact;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * Sorts records in bounded memory for the generic runner: rows are buffered up to the budget,
 * each full buffer is sorted and spilled to a local Parquet run, and the runs are merged. Order is
 * Iceberg's own {@link SortOrderComparators} (transforms applied exactly) or the {@link ZValues} z-value.
 */
final class ExternalSort implements AutoCloseable {
  private final Schema schema;
  private final Schema runSchema;
  private final Comparator<Keyed> order;
  private final ResolvedOrdering ordering;
  private final long budgetBytes;
  private final Path dir;
  private final List<Keyed> buffer = new ArrayList<>();
  private final List<File> runs = new ArrayList<>();
  private long bufferedBytes;

  /** A record with its precomputed z-value (null when sorting by a sort order). */
  record Keyed(Record record, byte[] z) {}

  ExternalSort(Schema schema, ResolvedOrdering ordering, long budgetBytes, Path dir)
      throws IOException {
    this.schema = schema;
    this.runSchema = runSchema(schema);
    this.ordering = ordering;
    this.budgetBytes = Math.max(1L << 20, budgetBytes);
    this.dir = Files.createTempDirectory(dir, "sort-");
    this.order = comparator(schema, ordering);
  }

  /**
   * The schema of a spilled run: the sorted schema with the row-lineage metadata columns turned into
   * plain columns. Read back as metadata columns, a run's _row_id would be replaced by the run's own
   * row positions and _last_updated_sequence_number by nothing; as plain columns they are data.
   */
  private static Schema runSchema(Schema schema) {
    int next = schema.highestFieldId();
    List<Types.NestedField> fields = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      if (org.apache.iceberg.MetadataColumns.isMetadataColumn(f.fieldId())) {
        fields.add(Types.NestedField.optional(++next, "spilled_" + f.name(), f.type()));
      } else {
        fields.add(f);
      }
    }
    return new Schema(fields);
  }

  private static Comparator<Keyed> comparator(Schema schema, ResolvedOrdering ordering) {
    if (ordering instanceof ResolvedOrdering.Sorted s) {
      Comparator<org.apache.iceberg.StructLike> rows =
          SortOrderComparators.forSchema(schema, s.order());
      InternalRecordWrapper left = new InternalRecordWrapper(schema.asStruct());
      InternalRecordWrapper right = new InternalRecordWrapper(schema.asStruct());
      // the wrappers convert dates and timestamps to Iceberg's internal form for the transforms
      return (a, b) -> rows.compare(left.wrap(a.record()), right.wrap(b.record()));
    }
    return (a, b) -> ZValues.compareUnsigned(a.z(), b.z());
  }

  void add(Record r) {
    Record copy = r.copy();
    buffer.add(keyed(copy));
    bufferedBytes += estimate(copy);
    if (bufferedBytes >= budgetBytes) {
      spill();
    }
  }

  private Keyed keyed(Record r) {
    if (ordering instanceof ResolvedOrdering.Z z) {
      Object[] values = new Object[z.columns().size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = r.getField(z.columns().get(i).name());
      }
      return new Keyed(r, ZValues.zValue(z.columns(), values));
    }
    return new Keyed(r, null);
  }

  /** Streams every added record in order. */
  void drainTo(Consumer<Record> sink) throws IOException {
    buffer.sort(order);
    if (runs.isEmpty()) {
      buffer.forEach(k -> sink.accept(k.record()));
      buffer.clear();
      return;
    }
    spill();
    List<CloseableIterable<Record>> open = new ArrayList<>();
    try {
      PriorityQueue<Head> heads =
          new PriorityQueue<>((a, b) -> order.compare(a.current, b.current));
      for (File run : runs) {
        CloseableIterable<Record> rows = CloseableIterable.transform(
            Parquet.read(org.apache.iceberg.Files.localInput(run))
                .project(runSchema)
                .createReaderFunc(fs -> GenericParquetReaders.buildReader(runSchema, fs))
                .build(),
            this::fromRun);
        open.add(rows);
        Iterator<Record> it = rows.iterator();
        if (it.hasNext()) {
          heads.add(new Head(keyed(it.next()), it));
        }
      }
      while (!heads.isEmpty()) {
        Head h = heads.poll();
        sink.accept(h.current.record());
        if (h.rest.hasNext()) {
          h.current = keyed(h.rest.next());
          heads.add(h);
        }
      }
    } finally {
      for (CloseableIterable<Record> c : open) {
        c.close();
      }
    }
  }

  private static final class Head {
    Keyed current;
    final Iterator<Record> rest;

    Head(Keyed current, Iterator<Record> rest) {
      this.current = current;
      this.rest = rest;
    }
  }

  private void spill() {
    if (buffer.isEmpty()) {
      return;
    }
    buffer.sort(order);
    File run = dir.resolve("run-" + runs.size() + ".parquet").toFile();
    // records of the sorted schema are written positionally under the run schema (same columns in
    // order)
    try (FileAppender<Record> out = Parquet.write(org.apache.iceberg.Files.localOutput(run))
        .schema(runSchema)
        .createWriterFunc(GenericParquetWriter::create)
        .build()) {
      for (Keyed k : buffer) {
        out.add(k.record());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    runs.add(run);
    buffer.clear();
    bufferedBytes = 0;
  }

  private Record fromRun(Record spilled) {
    Record r = org.apache.iceberg.data.GenericRecord.create(schema);
    for (int i = 0; i < schema.columns().size(); i++) {
      r.set(i, spilled.get(i));
    }
    return r;
  }

  /** A rough heap size of a record: enough to keep the buffer near its budget, not exact. */
  private long estimate(Record r) {
    long bytes = 48;
    for (Types.NestedField f : schema.columns()) {
      Object v = r.getField(f.name());
      bytes += v instanceof CharSequence s
          ? 48 + 2L * s.length()
          : v instanceof java.nio.ByteBuffer b
              ? 48 + b.remaining()
              : v instanceof java.util.Collection<?> c
                  ? 64 + 32L * c.size()
                  : v instanceof java.util.Map<?, ?> m
                      ? 64 + 64L * m.size()
                      : v instanceof Record nested ? 48 + 24L * nested.size() : 24;
    }
    return bytes;
  }

  @Override
  public void close() {
    DuckDbRewriter.deleteRecursively(dir);
  }
}
