package dev.resurfacer.delta.compact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.LayoutAdvisor;
import dev.resurfacer.layout.LayoutSimulator;
import dev.resurfacer.layout.RecordedScan;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.zorder.ZKeys;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code advise} on a Delta table: the recorded scans (docs/scan-reports.md, from any producer)
 * against its current files (the min/max of each {@code add}'s stats) and against the files each
 * candidate layout would write, simulated by the format-neutral {@link LayoutAdvisor} on a sample of
 * its live rows read by Kernel and keyed as Delta's z-order keys them ({@link ZOrder#key}). Delta's
 * compaction writes z-order but no sort order, so a sort by one column is proposed as the z-order of
 * that column (the same row order).
 */
public final class DeltaLayouts {
  /** As Iceberg's advise: about this many rows, from at most {@link #SAMPLE_FILES} files. */
  public static final int SAMPLE_ROWS = 200_000;

  public static final int SAMPLE_FILES = 256;
  private static final ObjectMapper JSON = new ObjectMapper();

  private DeltaLayouts() {}

  private record DataFile(
      Row scanFile, String partition, long size, long records, long[] min, long[] max) {}

  public static Advice advise(
      String name, DeltaTable table, ScanReports.Loaded loaded, double minGain) {
    Snapshot snapshot = table.latest();
    StructType schema = snapshot.getSchema();
    List<StructField> columns =
        sampleColumns(schema, snapshot.getPartitionColumnNames(), loaded.scans());
    List<String> names = columns.stream().map(StructField::getName).toList();
    StructType readSchema = new StructType(columns);
    List<DataFile> files = columns.isEmpty()
        ? files(table, snapshot, null, List.of())
        : files(table, snapshot, readSchema, columns);
    List<LayoutSimulator.FileRanges> current = files.stream()
        .map(f -> new LayoutSimulator.FileRanges(f.min(), f.max(), f.size()))
        .toList();
    Map<String, List<DataFile>> byPartition = new LinkedHashMap<>();
    files.forEach(
        f -> byPartition.computeIfAbsent(f.partition(), k -> new ArrayList<>()).add(f));
    int[] read = new int[1];
    List<LayoutSimulator.PartitionSample> partitions = columns.isEmpty()
        ? List.of()
        : sample(table, snapshot, readSchema, byPartition, files.size(), read);
    LayoutSimulator.Keys keys = (column, literal) -> literalKey(schema, names, column, literal);
    LayoutAdvisor.TableView view = new LayoutAdvisor.TableView(
        new LayoutSimulator.Sample(names, partitions), read[0], current, keys, files.size());
    long target = CompactionDefaults.targetFileSize(snapshot.getTableProperties());
    // Delta versions carry no rewrite marker the reports could be grouped by here: no era table
    return LayoutAdvisor.advise(
        name, loaded, view, new LayoutAdvisor.Settings(minGain, target, false), version -> null);
  }

  /** The filtered top-level data columns (not partition columns) z-order can key, in the schema's spelling. */
  static List<StructField> sampleColumns(
      StructType schema, List<String> partitionColumns, List<RecordedScan> scans) {
    Set<StructField> out = new LinkedHashSet<>();
    for (RecordedScan s : scans) {
      for (String c : s.filter().prunableColumns()) {
        for (StructField f : schema.fields()) {
          if (f.getName().equalsIgnoreCase(c)
              && ZOrder.supported(f.getDataType())
              && partitionColumns.stream().noneMatch(p -> p.equalsIgnoreCase(f.getName()))) {
            out.add(f);
          }
        }
      }
    }
    return List.copyOf(out);
  }

  /** Every live file with its stats' min/max per column as keys; a column without stats may hold anything. */
  private static List<DataFile> files(
      DeltaTable table, Snapshot snapshot, StructType readSchema, List<StructField> columns) {
    List<DataFile> out = new ArrayList<>();
    var builder = snapshot.getScanBuilder();
    if (readSchema != null) {
      builder = builder.withReadSchema(readSchema);
    }
    try (CloseableIterator<FilteredColumnarBatch> batches =
        builder.build().getScanFiles(table.engine(), true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            Row scanFile = rows.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            String stats = string(add, "stats");
            long[] min = new long[columns.size()];
            long[] max = new long[columns.size()];
            Arrays.fill(max, -1L);
            long records = 0;
            if (stats != null && !stats.isBlank()) {
              JsonNode n = JSON.readTree(stats);
              records = n.path("numRecords").asLong(0);
              for (int c = 0; c < columns.size(); c++) {
                String physical = KernelInternals.physicalName(columns.get(c));
                JsonNode lo = n.path("minValues").get(physical);
                JsonNode hi = n.path("maxValues").get(physical);
                OptionalLong l = lo == null
                    ? OptionalLong.empty()
                    : statKey(columns.get(c).getDataType(), lo, false);
                OptionalLong h = hi == null
                    ? OptionalLong.empty()
                    : statKey(columns.get(c).getDataType(), hi, true);
                if (l.isPresent() && h.isPresent()) {
                  min[c] = l.getAsLong();
                  max[c] = h.getAsLong();
                }
              }
            }
            int sizeAt = add.getSchema().indexOf("size");
            out.add(new DataFile(scanFile, partition(add), add.getLong(sizeAt), records, min, max));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the file list of " + table.name(), e);
    }
    out.sort(java.util.Comparator.comparing(DataFile::partition)
        .thenComparing(
            f -> string(f.scanFile().getStruct(f.scanFile().getSchema().indexOf("add")), "path")));
    return out;
  }

  /**
   * Each partition's bytes, and rows from an even pick of its files (at least one per partition),
   * every k-th live row (deletion vectors applied by Kernel) so that about {@link #SAMPLE_ROWS} are kept.
   */
  private static List<LayoutSimulator.PartitionSample> sample(
      DeltaTable table,
      Snapshot snapshot,
      StructType readSchema,
      Map<String, List<DataFile>> byPartition,
      int fileCount,
      int[] read) {
    int every = Math.max(1, (int) Math.ceil((double) fileCount / SAMPLE_FILES));
    long picked = 0;
    Map<String, List<DataFile>> chosen = new LinkedHashMap<>();
    for (Map.Entry<String, List<DataFile>> e : byPartition.entrySet()) {
      List<DataFile> pick = new ArrayList<>();
      for (int i = 0; i < e.getValue().size(); i += every) {
        pick.add(e.getValue().get(i));
        picked += e.getValue().get(i).records();
      }
      chosen.put(e.getKey(), pick);
    }
    long stride = Math.max(1, picked / SAMPLE_ROWS);
    Scan scan = snapshot.getScanBuilder().withReadSchema(readSchema).build();
    Row scanState = scan.getScanState(table.engine());
    StructType physical = KernelInternals.physicalReadSchema(scanState);
    int width = readSchema.length();
    List<LayoutSimulator.PartitionSample> out = new ArrayList<>();
    for (Map.Entry<String, List<DataFile>> e : chosen.entrySet()) {
      long bytes =
          byPartition.get(e.getKey()).stream().mapToLong(DataFile::size).sum();
      List<long[]> rows = new ArrayList<>();
      for (DataFile f : e.getValue()) {
        read[0]++;
        Row add = f.scanFile().getStruct(f.scanFile().getSchema().indexOf("add"));
        FileStatus status = FileStatus.of(
            table.storage().kernelPath(table.storage().resolve(string(add, "path"))), f.size(), 0);
        long i = 0;
        try {
          CloseableIterator<ColumnarBatch> data = table
              .engine()
              .getParquetHandler()
              .readParquetFiles(KernelIterators.of(List.of(status)), physical, Optional.empty())
              .map(FileReadResult::getData);
          try (CloseableIterator<FilteredColumnarBatch> logical =
              Scan.transformPhysicalData(table.engine(), scanState, f.scanFile(), data)) {
            while (logical.hasNext()) {
              FilteredColumnarBatch b = logical.next();
              ColumnarBatch batch = b.getData();
              Optional<ColumnVector> selection = b.getSelectionVector();
              ColumnVector[] vectors = new ColumnVector[width];
              for (int c = 0; c < width; c++) {
                vectors[c] = batch.getColumnVector(
                    batch.getSchema().indexOf(readSchema.at(c).getName()));
              }
              for (int r = 0; r < batch.getSize(); r++) {
                if (selection.isPresent()
                    && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
                  continue;
                }
                if (i++ % stride != 0) {
                  continue;
                }
                long[] k = new long[width];
                for (int c = 0; c < width; c++) {
                  k[c] = ZOrder.key(vectors[c], r);
                }
                rows.add(k);
              }
            }
          }
        } catch (IOException ex) {
          throw new UncheckedIOException("cannot read " + status.getPath(), ex);
        }
      }
      out.add(new LayoutSimulator.PartitionSample(e.getKey(), bytes, rows.toArray(new long[0][])));
    }
    return out;
  }

  /**
   * A stats value as a key. Delta writes timestamps in stats to the millisecond, truncated: a max is
   * widened to the end of its millisecond so a file is never pruned that holds a matching row.
   */
  static OptionalLong statKey(DataType type, JsonNode v, boolean isMax) {
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    OptionalLong k = key(
        type,
        v.isNumber()
            ? (v.isIntegralNumber() ? (Object) v.asLong() : v.asDouble())
            : v.isBoolean() ? v.asBoolean() : v.asText());
    if (k.isPresent()
        && isMax
        && (type instanceof TimestampType || type instanceof TimestampNTZType)) {
      return OptionalLong.of(widen(k.getAsLong()));
    }
    return k;
  }

  private static long widen(long key) {
    return Long.compareUnsigned(key, -1L - 999) > 0 ? -1L : key + 999;
  }

  private static OptionalLong literalKey(
      StructType schema, List<String> names, String column, Object value) {
    for (StructField f : schema.fields()) {
      if (f.getName().equalsIgnoreCase(column) && names.contains(f.getName())) {
        return key(f.getDataType(), value);
      }
    }
    return OptionalLong.empty();
  }

  /**
   * A literal (from a report or from stats) as the key {@link ZOrder#key} gives the column's values:
   * dates as days, timestamps as microseconds (numbers as given, or ISO strings), decimals unscaled.
   */
  static OptionalLong key(DataType type, Object value) {
    try {
      if (type instanceof StringType) {
        return OptionalLong.of(ZKeys.ofString(value.toString()));
      }
      if (type instanceof BooleanType) {
        return OptionalLong.of(ZKeys.ofBoolean(
            value instanceof Boolean b ? b : Boolean.parseBoolean(value.toString())));
      }
      if (type instanceof DoubleType || type instanceof FloatType) {
        return OptionalLong.of(ZKeys.ofDouble(
            value instanceof Number n ? n.doubleValue() : Double.parseDouble(value.toString())));
      }
      if (type instanceof DecimalType d) {
        BigDecimal b = new BigDecimal(value.toString())
            .setScale(d.getScale(), java.math.RoundingMode.UNNECESSARY);
        return OptionalLong.of(ZKeys.ofLong(b.unscaledValue().longValueExact()));
      }
      if (value instanceof Long l) {
        return OptionalLong.of(ZKeys.ofLong(l));
      }
      if (value instanceof Double) {
        return OptionalLong.empty();
      }
      String s = value.toString().trim();
      if (type instanceof DateType) {
        return OptionalLong.of(ZKeys.ofLong(
            LocalDate.parse(s.length() > 10 ? s.substring(0, 10) : s).toEpochDay()));
      }
      if (type instanceof TimestampType || type instanceof TimestampNTZType) {
        return OptionalLong.of(ZKeys.ofLong(micros(s)));
      }
      return OptionalLong.of(ZKeys.ofLong(Long.parseLong(s)));
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  private static long micros(String s) {
    Instant at;
    try {
      at = Instant.parse(s);
    } catch (RuntimeException e) {
      at = LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    }
    return ChronoUnit.MICROS.between(Instant.EPOCH, at);
  }

  private static String partition(Row add) {
    int i = add.getSchema().indexOf("partitionValues");
    if (i < 0 || add.isNullAt(i)) {
      return "";
    }
    MapValue m = add.getMap(i);
    Map<String, String> sorted = new TreeMap<>();
    for (int k = 0; k < m.getSize(); k++) {
      sorted.put(
          m.getKeys().getString(k),
          m.getValues().isNullAt(k) ? null : m.getValues().getString(k));
    }
    return sorted.toString();
  }

  private static String string(Row row, String field) {
    int i = row.getSchema().indexOf(field);
    return i < 0 || row.isNullAt(i) ? null : row.getString(i);
  }
}
