package dev.resurfacer.delta.compact;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * An order-independent digest of rows: the row count and the wrapping sum of a 64-bit hash of each
 * row's values (nulls and types included), so the same rows in any order and any file split give
 * the same fingerprint, and a lost, duplicated or altered row changes it.
 */
final class ContentFingerprint {
  private long rows;
  private long sum;

  record Value(long rows, long sum) {}

  Value value() {
    return new Value(rows, sum);
  }

  /** Adds the selected rows of {@code batch}, reading only {@code columns} (by name). */
  void add(ColumnarBatch batch, Optional<ColumnVector> selection, List<String> columns) {
    int[] ordinals = columns.stream().mapToInt(c -> batch.getSchema().indexOf(c)).toArray();
    if (Arrays.stream(ordinals).anyMatch(i -> i < 0)) {
      throw new IllegalStateException("a fingerprinted column is missing from " + batch.getSchema());
    }
    for (int r = 0; r < batch.getSize(); r++) {
      if (selection.isPresent() && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
        continue;
      }
      long h = 0x9E3779B97F4A7C15L;
      for (int i : ordinals) {
        ColumnVector v = batch.getColumnVector(i);
        h = mix(h * 31 + value(v, r));
      }
      rows++;
      sum += h;
    }
  }

  private static long value(ColumnVector v, int r) {
    if (v.isNullAt(r)) {
      return 0x5bd1e995L;
    }
    DataType t = v.getDataType();
    if (t instanceof BooleanType) {
      return v.getBoolean(r) ? 1 : 2;
    } else if (t instanceof ByteType) {
      return v.getByte(r);
    } else if (t instanceof ShortType) {
      return v.getShort(r);
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return v.getInt(r);
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return v.getLong(r);
    } else if (t instanceof FloatType) {
      return Float.floatToIntBits(v.getFloat(r));
    } else if (t instanceof DoubleType) {
      return Double.doubleToLongBits(v.getDouble(r));
    } else if (t instanceof StringType) {
      return bytes(v.getString(r).getBytes(StandardCharsets.UTF_8));
    } else if (t instanceof BinaryType) {
      return bytes(v.getBinary(r));
    } else if (t instanceof DecimalType) {
      return bytes(v.getDecimal(r).toString().getBytes(StandardCharsets.UTF_8));
    } else if (t instanceof StructType s) {
      long h = 17;
      for (int i = 0; i < s.length(); i++) {
        h = mix(h * 31 + value(v.getChild(i), r));
      }
      return h;
    } else if (t instanceof ArrayType) {
      ArrayValue a = v.getArray(r);
      long h = 19;
      for (int i = 0; i < a.getSize(); i++) {
        h = mix(h * 31 + value(a.getElements(), i));
      }
      return h;
    } else if (t instanceof MapType) {
      MapValue m = v.getMap(r);
      long h = 23;
      for (int i = 0; i < m.getSize(); i++) {
        h += mix(value(m.getKeys(), i) * 31 + value(m.getValues(), i));
      }
      return h;
    }
    throw new IllegalStateException("cannot fingerprint a column of type " + t);
  }

  private static long bytes(byte[] b) {
    long h = 1125899906842597L;
    for (byte x : b) {
      h = 31 * h + x;
    }
    return mix(h);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }
}
