package dev.resurfacer.iceberg.layout;

import dev.resurfacer.iceberg.compact.ZValues;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.LayoutAdvisor;
import dev.resurfacer.layout.LayoutSimulator;
import dev.resurfacer.layout.RecordedScan;
import dev.resurfacer.layout.ScanReports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * {@code advise} on an Iceberg table: the recorded scans against its current files (their manifest
 * min/max) and against the files each candidate layout would write, simulated on a sample of its
 * rows keyed by the z-order keys ({@link ZValues}).
 */
public final class IcebergLayouts {
  /** Rows sampled at most, spread over at most {@link #SAMPLE_FILES} files. */
  public static final int SAMPLE_ROWS = 200_000;

  public static final int SAMPLE_FILES = 256;

  private IcebergLayouts() {}

  public static Advice advise(String name, Table table, ScanReports.Loaded loaded, double minGain) {
    Schema schema = table.schema();
    List<Types.NestedField> columns = sampleColumns(schema, loaded.scans());
    List<DataFile> files = new ArrayList<>();
    if (table.currentSnapshot() != null) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().includeColumnStats().planFiles()) {
        tasks.forEach(t -> files.add(t.file()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    files.sort(Comparator.comparing((DataFile f) -> partitionKey(table, f))
        .thenComparing(f -> f.location()));
    List<String> names = columns.stream().map(Types.NestedField::name).toList();
    SampleRead sample = sample(table, files, columns);
    List<LayoutSimulator.FileRanges> current =
        files.stream().map(f -> ranges(f, columns)).toList();
    LayoutSimulator.Keys keys = (column, literal) -> literalKey(schema, names, column, literal);
    long target = PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    LayoutAdvisor.TableView view = new LayoutAdvisor.TableView(
        new LayoutSimulator.Sample(names, sample.partitions()),
        sample.files(),
        current,
        keys,
        files.size());
    Map<Long, LayoutAdvisor.Era> eras = eras(table);
    return LayoutAdvisor.advise(
        name, loaded, view, new LayoutAdvisor.Settings(minGain, target), eras::get);
  }

  /** The filtered top-level columns z-order can key, in the schema's spelling. */
  static List<Types.NestedField> sampleColumns(Schema schema, List<RecordedScan> scans) {
    Set<Types.NestedField> out = new LinkedHashSet<>();
    for (RecordedScan s : scans) {
      for (String c : s.filter().prunableColumns()) {
        Types.NestedField f = schema.caseInsensitiveFindField(c);
        if (f != null
            && schema.asStruct().field(f.fieldId()) != null
            && f.type().isPrimitiveType()
            && ZValues.unsupported(f).isEmpty()) {
          out.add(f);
        }
      }
    }
    return List.copyOf(out);
  }

  private static OptionalLong literalKey(
      Schema schema, List<String> names, String column, Object value) {
    Types.NestedField f = schema.caseInsensitiveFindField(column);
    if (f == null || !names.contains(f.name())) {
      return OptionalLong.empty();
    }
    Type type = f.type();
    try {
      Literal<?> lit;
      if (value instanceof Long l) {
        lit = Literal.of(l).to(type);
      } else if (value instanceof Double d) {
        lit = Literal.of(d).to(type);
      } else if (value instanceof Boolean b) {
        lit = Literal.of(b).to(type);
      } else {
        String s = value.toString();
        lit = Literal.of(s).to(type);
        if (lit == null
            && (type.typeId() == Type.TypeID.INTEGER || type.typeId() == Type.TypeID.LONG)) {
          lit = Literal.of(Long.parseLong(s.trim())).to(type);
        } else if (lit == null
            && (type.typeId() == Type.TypeID.DOUBLE || type.typeId() == Type.TypeID.FLOAT)) {
          lit = Literal.of(Double.parseDouble(s.trim())).to(type);
        }
      }
      return lit == null ? OptionalLong.empty() : OptionalLong.of(ZValues.key(type, lit.value()));
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  private static String partitionKey(Table table, DataFile f) {
    return f.specId() + "/" + table.specs().get(f.specId()).partitionToPath(f.partition());
  }

  private record SampleRead(List<LayoutSimulator.PartitionSample> partitions, int files) {}

  /**
   * Every partition's bytes, and rows from an even pick of its files (at least one per partition), every
   * k-th row so that about {@link #SAMPLE_ROWS} are kept. Deletes are not applied: a layout estimate.
   */
  private static SampleRead sample(
      Table table, List<DataFile> files, List<Types.NestedField> columns) {
    Map<String, List<DataFile>> byPartition = new LinkedHashMap<>();
    files.forEach(f -> byPartition
        .computeIfAbsent(partitionKey(table, f), k -> new ArrayList<>())
        .add(f));
    if (columns.isEmpty()) {
      return new SampleRead(List.of(), 0);
    }
    int every = Math.max(1, (int) Math.ceil((double) files.size() / SAMPLE_FILES));
    Map<String, List<DataFile>> picked = new LinkedHashMap<>();
    long pickedRecords = 0;
    for (Map.Entry<String, List<DataFile>> e : byPartition.entrySet()) {
      List<DataFile> chosen = new ArrayList<>();
      List<DataFile> all = e.getValue();
      for (int i = 0; i < all.size(); i += every) {
        if (all.get(i).format() == FileFormat.PARQUET) {
          chosen.add(all.get(i));
          pickedRecords += all.get(i).recordCount();
        }
      }
      picked.put(e.getKey(), chosen);
    }
    long stride = Math.max(1, pickedRecords / SAMPLE_ROWS);
    Schema projection = new Schema(columns);
    List<LayoutSimulator.PartitionSample> out = new ArrayList<>();
    int read = 0;
    for (Map.Entry<String, List<DataFile>> e : picked.entrySet()) {
      long bytes = byPartition.get(e.getKey()).stream()
          .mapToLong(DataFile::fileSizeInBytes)
          .sum();
      List<long[]> rows = new ArrayList<>();
      for (DataFile f : e.getValue()) {
        read++;
        long i = 0;
        try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(f.location()))
            .project(projection)
            .createReaderFunc(fs -> GenericParquetReaders.buildReader(projection, fs))
            .build()) {
          for (Record r : records) {
            if (i++ % stride != 0) {
              continue;
            }
            long[] k = new long[columns.size()];
            for (int c = 0; c < k.length; c++) {
              k[c] = ZValues.key(columns.get(c).type(), r.get(c));
            }
            rows.add(k);
          }
        } catch (IOException ex) {
          throw new UncheckedIOException(ex);
        }
      }
      out.add(new LayoutSimulator.PartitionSample(e.getKey(), bytes, rows.toArray(new long[0][])));
    }
    return new SampleRead(out, read);
  }

  /** A file's manifest bounds as keys; a column without bounds may hold anything. */
  private static LayoutSimulator.FileRanges ranges(DataFile f, List<Types.NestedField> columns) {
    long[] min = new long[columns.size()];
    long[] max = new long[columns.size()];
    Arrays.fill(max, -1L);
    Map<Integer, ByteBuffer> lower = f.lowerBounds() == null ? Map.of() : f.lowerBounds();
    Map<Integer, ByteBuffer> upper = f.upperBounds() == null ? Map.of() : f.upperBounds();
    for (int c = 0; c < columns.size(); c++) {
      Types.NestedField col = columns.get(c);
      ByteBuffer lo = lower.get(col.fieldId());
      ByteBuffer hi = upper.get(col.fieldId());
      if (lo != null && hi != null) {
        try {
          min[c] = ZValues.key(col.type(), Conversions.fromByteBuffer(col.type(), lo));
          max[c] = ZValues.key(col.type(), Conversions.fromByteBuffer(col.type(), hi));
        } catch (RuntimeException e) {
          min[c] = 0;
          max[c] = -1L;
        }
      }
    }
    return new LayoutSimulator.FileRanges(min, max, f.fileSizeInBytes());
  }

  /** Each snapshot's era: the latest {@code replace} snapshot at or before it (the table's first snapshot before any). */
  static Map<Long, LayoutAdvisor.Era> eras(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber)
        .thenComparingLong(Snapshot::timestampMillis));
    Map<Long, LayoutAdvisor.Era> out = new HashMap<>();
    LayoutAdvisor.Era era = null;
    for (Snapshot s : snapshots) {
      // a compaction committing group by group starts several eras; scans land on its last one only
      if (era == null || "replace".equals(s.operation())) {
        era = new LayoutAdvisor.Era(
            s.snapshotId(), Instant.ofEpochMilli(s.timestampMillis()).toString());
      }
      out.put(s.snapshotId(), era);
    }
    return out;
  }
}
