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
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * An order-independent digest of rows: the row count, and the wrapping sum and the xor of a 64-bit
 * hash of each row's values (nulls and types included), so the same rows in any order and any file
 * split give the same fingerprint, and a lost, duplicated or altered row changes it. Digests of
 * disjoint parts add up ({@link Value#plus}), so files can be read on several threads.
 */
final class ContentFingerprint {
  private long rows;
  private long sum;
  private long xor;

  record Value(long rows, long sum, long xor) {
    static final Value NONE = new Value(0, 0, 0);

    Value plus(Value other) {
      return new Value(rows + other.rows, sum + other.sum, xor ^ other.xor);
    }
  }

  Value value() {
    return new Value(rows, sum, xor);
  }

  void add(Value part) {
    rows += part.rows();
    sum += part.sum();
    xor ^= part.xor();
  }

  /**
   * The sum of {@code one} over {@code items}, read on up to {@code threads} threads: the Kernel
   * reader decodes row by row on one core, and verification reads every input and output row.
   */
  static <T> Value sum(List<T> items, int threads, Function<T, Value> one) {
    if (threads <= 1 || items.size() <= 1) {
      return items.stream().map(one).reduce(Value.NONE, Value::plus);
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, items.size()), r -> {
      Thread t = new Thread(r, "delta-verify");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Value>> parts = items.stream().map(i -> pool.submit(() -> one.apply(i))).toList();
      Value total = Value.NONE;
      for (Future<Value> part : parts) {
        total = total.plus(await(part));
      }
      return total;
    } finally {
      // a failed part stops the others at their next batch (add checks for the interrupt)
      pool.shutdownNow();
    }
  }

  static <V> V await(Future<V> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new CancellationException("content verification interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Adds the selected rows of {@code batch}, reading only {@code columns} (by name). */
  void add(ColumnarBatch batch, Optional<ColumnVector> selection, List<String> columns) {
    if (Thread.currentThread().isInterrupted()) {
      throw new CancellationException("content verification cancelled");
    }
    int[] ordinals = columns.stream().mapToInt(c -> batch.getSchema().indexOf(c)).toArray();
    if (Arrays.stream(ordinals).anyMatch(i -> i < 0)) {
      throw new IllegalStateException("a fingerprinted column is missing from " + batch.getSchema());
    }
    ColumnVector[] vectors = Arrays.stream(ordinals).mapToObj(batch::getColumnVector).toArray(ColumnVector[]::new);
    for (int r = 0; r < batch.getSize(); r++) {
      if (selection.isPresent() && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
        continue;
      }
      long h = 0x9E3779B97F4A7C15L;
      for (ColumnVector v : vectors) {
        h = mix(h * 31 + value(v, r));
      }
      rows++;
      sum += h;
      xor ^= mix(h ^ 0x632BE59BD9B4E019L);
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
      return chars(v.getString(r));
    } else if (t instanceof BinaryType) {
      return bytes(v.getBinary(r));
    } else if (t instanceof DecimalType) {
      // the unscaled digits and the scale: what toString() tells apart, without formatting it
      BigDecimal d = v.getDecimal(r);
      return mix(bytes(d.unscaledValue().toByteArray()) * 31 + d.scale());
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

  // an odd 64-bit multiplier: with 31, "Aa" and "BB" hashed alike
  private static final long K = 0x9E3779B97F4A7C15L;

  private static long bytes(byte[] b) {
    long h = b.length;
    for (byte x : b) {
      h = (h + (x & 0xff)) * K;
    }
    return mix(h);
  }

  /** A string by its UTF-16 units, which determine its UTF-8 bytes and back. */
  private static long chars(String s) {
    long h = ~(long) s.length();
    for (int i = 0; i < s.length(); i++) {
      h = (h + s.charAt(i)) * K;
    }
    return mix(h);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }
}
