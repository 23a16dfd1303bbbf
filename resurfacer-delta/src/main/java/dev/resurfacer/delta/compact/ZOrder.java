package dev.resurfacer.delta.compact;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.VectorBatch;
import dev.resurfacer.zorder.ZKeys;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Delta's z-order on the z-value our Iceberg z-order uses ({@link ZKeys}, docs/ordering.md): Kernel's
 * logical types mapped onto the same keys (byte, short, int, long, date as days, timestamps as
 * microseconds, decimals up to 18 digits unscaled, float/double, string, boolean). One bin's live
 * rows are held in memory, sorted by z-value and handed to the writer in that order, so the files a
 * partition is rewritten into cover consecutive z-ranges.
 */
final class ZOrder {
  private static final int OUTPUT_BATCH_ROWS = 4096;

  private ZOrder() {}

  /** Usage errors for columns that cannot be z-ordered; a refusal for clustered (liquid) tables. */
  static void check(Snapshot snapshot, List<String> columns) {
    var p = KernelInternals.protocol(snapshot);
    if (p.writerFeatures().contains("clustering")) {
      throw new SafetyRefusal(
          "z-order refused: the table is clustered (liquid clustering), which orders its files by its own "
              + "clustering columns; Delta rejects ZORDER BY on such tables too. Bin-pack compaction (without --strategy zorder) works");
    }
    StructType schema = snapshot.getSchema();
    List<String> partitions = snapshot.getPartitionColumnNames();
    for (String c : columns) {
      if (partitions.contains(c)) {
        throw new UsageException("z-order column " + c
            + " is a partition column (a partition holds one value of it); " + "name data columns");
      }
      int i = schema.indexOf(c);
      if (i < 0) {
        throw new UsageException("z-order column " + c + " is not a column of the table ("
            + String.join(", ", schema.fieldNames()) + ")");
      }
      DataType t = schema.at(i).getDataType();
      if (!supported(t)) {
        throw new UsageException("z-order column " + c + " has type " + t
            + ", which has no z-value (numbers, dates, timestamps, "
            + "strings, booleans and decimals up to 18 digits do)");
      }
    }
  }

  static boolean supported(DataType t) {
    return t instanceof BooleanType
        || t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof DateType
        || t instanceof LongType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType
        || t instanceof FloatType
        || t instanceof DoubleType
        || t instanceof StringType
        || (t instanceof DecimalType d && d.getPrecision() <= 18);
  }

  static long key(ColumnVector v, int row) {
    if (v.isNullAt(row)) {
      return ZKeys.NULL;
    }
    DataType t = v.getDataType();
    if (t instanceof BooleanType) {
      return ZKeys.ofBoolean(v.getBoolean(row));
    } else if (t instanceof ByteType) {
      return ZKeys.ofLong(v.getByte(row));
    } else if (t instanceof ShortType) {
      return ZKeys.ofLong(v.getShort(row));
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return ZKeys.ofLong(v.getInt(row));
    } else if (t instanceof LongType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType) {
      return ZKeys.ofLong(v.getLong(row));
    } else if (t instanceof FloatType) {
      return ZKeys.ofDouble(v.getFloat(row));
    } else if (t instanceof DoubleType) {
      return ZKeys.ofDouble(v.getDouble(row));
    } else if (t instanceof StringType) {
      return ZKeys.ofString(v.getString(row));
    } else if (t instanceof DecimalType) {
      return ZKeys.ofLong(v.getDecimal(row).unscaledValue().longValueExact());
    }
    throw new IllegalArgumentException("z-order does not support " + t);
  }

  /** A row of one of the held batches and its z-value. */
  private record Keyed(byte[] z, int batch, int row) {}

  /**
   * Drains {@code rows} (the live rows of one bin), and returns them in z-value order as batches
   * without selection vectors. Ties keep their input order.
   */
  static CloseableIterator<FilteredColumnarBatch> sorted(
      CloseableIterator<FilteredColumnarBatch> rows, List<String> columns) {
    List<ColumnarBatch> batches = new ArrayList<>();
    List<Keyed> keyed = new ArrayList<>();
    StructType schema = null;
    try (rows) {
      while (rows.hasNext()) {
        FilteredColumnarBatch b = rows.next();
        ColumnarBatch data = b.getData();
        schema = data.getSchema();
        int index = batches.size();
        batches.add(data);
        ColumnVector[] zColumns = new ColumnVector[columns.size()];
        for (int c = 0; c < zColumns.length; c++) {
          zColumns[c] = data.getColumnVector(schema.indexOf(columns.get(c)));
        }
        Optional<ColumnVector> selection = b.getSelectionVector();
        for (int r = 0; r < data.getSize(); r++) {
          if (selection.isPresent()
              && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
            continue;
          }
          long[] keys = new long[zColumns.length];
          for (int c = 0; c < keys.length; c++) {
            keys[c] = key(zColumns[c], r);
          }
          keyed.add(new Keyed(ZKeys.interleave(keys), index, r));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    keyed.sort((a, b) -> ZKeys.compare(a.z(), b.z()));
    StructType outSchema = schema;
    int total = keyed.size();
    return new CloseableIterator<>() {
      int at;

      @Override
      public boolean hasNext() {
        return at < total;
      }

      @Override
      public FilteredColumnarBatch next() {
        int n = Math.min(OUTPUT_BATCH_ROWS, total - at);
        int[] batch = new int[n];
        int[] row = new int[n];
        for (int i = 0; i < n; i++) {
          Keyed k = keyed.get(at + i);
          batch[i] = k.batch();
          row[i] = k.row();
        }
        at += n;
        ColumnVector[] vectors = new ColumnVector[outSchema.length()];
        for (int c = 0; c < vectors.length; c++) {
          ColumnVector[] sources = new ColumnVector[batches.size()];
          for (int s = 0; s < sources.length; s++) {
            sources[s] = batches.get(s).getColumnVector(c);
          }
          // the vectors' own type: on a column-mapped table nested fields keep the physical names
          // they were read by
          vectors[c] = new Gathered(sources[0].getDataType(), sources, batch, row);
        }
        return new FilteredColumnarBatch(new VectorBatch(outSchema, vectors, n), Optional.empty());
      }

      @Override
      public void close() {}
    };
  }

  /** Row i is row {@code row[i]} of {@code sources[batch[i]]}; nested columns gather their children the same way. */
  private record Gathered(DataType type, ColumnVector[] sources, int[] batch, int[] row)
      implements ColumnVector {
    private ColumnVector at(int i) {
      return sources[batch[i]];
    }

    @Override
    public DataType getDataType() {
      return type;
    }

    @Override
    public int getSize() {
      return row.length;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int i) {
      return at(i).isNullAt(row[i]);
    }

    @Override
    public boolean getBoolean(int i) {
      return at(i).getBoolean(row[i]);
    }

    @Override
    public byte getByte(int i) {
      return at(i).getByte(row[i]);
    }

    @Override
    public short getShort(int i) {
      return at(i).getShort(row[i]);
    }

    @Override
    public int getInt(int i) {
      return at(i).getInt(row[i]);
    }

    @Override
    public long getLong(int i) {
      return at(i).getLong(row[i]);
    }

    @Override
    public float getFloat(int i) {
      return at(i).getFloat(row[i]);
    }

    @Override
    public double getDouble(int i) {
      return at(i).getDouble(row[i]);
    }

    @Override
    public byte[] getBinary(int i) {
      return at(i).getBinary(row[i]);
    }

    @Override
    public String getString(int i) {
      return at(i).getString(row[i]);
    }

    @Override
    public java.math.BigDecimal getDecimal(int i) {
      return at(i).getDecimal(row[i]);
    }

    @Override
    public io.delta.kernel.data.MapValue getMap(int i) {
      return at(i).getMap(row[i]);
    }

    @Override
    public io.delta.kernel.data.ArrayValue getArray(int i) {
      return at(i).getArray(row[i]);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      ColumnVector[] children =
          Arrays.stream(sources).map(s -> s.getChild(ordinal)).toArray(ColumnVector[]::new);
      StructField f = ((StructType) type).at(ordinal);
      return new Gathered(f.getDataType(), children, batch, row);
    }
  }
}
