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
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
    try (Parts parts = new Parts(items, threads, one)) {
      return parts.value();
    }
  }

  /** Digests of parts, each computed on one of up to {@code threads} threads from the start; {@link #value} sums them. */
  static final class Parts implements AutoCloseable {
    private final ExecutorService pool;
    private final List<Future<Value>> parts;

    <T> Parts(List<T> items, int threads, Function<T, Value> one) {
      pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, items.size())), r -> {
        Thread t = new Thread(r, "delta-verify");
        t.setDaemon(true);
        return t;
      });
      parts = items.stream().map(i -> pool.submit(() -> one.apply(i))).toList();
    }

    Value value() {
      Value total = Value.NONE;
      for (Future<Value> part : parts) {
        total = total.plus(await(part));
      }
      return total;
    }

    /** A failed or abandoned sum stops the other parts at their next batch ({@code add} checks for the interrupt). */
    @Override
    public void close() {
      pool.shutdownNow();
    }
  }

  /**
   * Waits for {@code future} even when this thread is interrupted (the interrupt is kept for the
   * caller): a bin being verified or committed must end, committed or cleaned up, before its run
   * reports; cancelling it mid-commit could delete files a landed commit references.
   */
  static <V> V awaitToTheEnd(Future<V> future) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return unwrap(future);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static <V> V unwrap(Future<V> future) throws InterruptedException {
    try {
      return future.get();
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

  /**
   * The fingerprint of a bin's live input, read by Kernel (deletion vectors applied, strings as
   * bytes) in the background while the runner writes: an account of the rows independent of the
   * runner's own read.
   */
  static Parts ofInput(BinWork work, CompactionPlan.Bin bin) {
    return new Parts(bin.files(), work.verifyThreads(), f -> KernelBinRunner.fingerprint(work, f));
  }

  static <V> V await(Future<V> future) {
    try {
      return unwrap(future);
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new CancellationException("content verification interrupted");
    }
  }


  /**
   * {@code schema} with every string, at any depth, read as binary: the same bytes without
   * Kernel's decoding to {@code String}, which was a sixth of the verification's time. Fields that
   * hold no string are kept as they are (metadata columns, field ids).
   */
  static StructType stringsAsBinary(StructType schema) {
    List<StructField> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      DataType t = stringsAsBinary(f.getDataType());
      fields.add(t == f.getDataType() ? f : new StructField(f.getName(), t, f.isNullable(), f.getMetadata()));
    }
    return new StructType(fields);
  }

  private static DataType stringsAsBinary(DataType t) {
    if (t instanceof StringType) {
      return BinaryType.BINARY;
    } else if (t instanceof StructType s) {
      StructType binary = stringsAsBinary(s);
      return binary.equals(s) ? s : binary;
    } else if (t instanceof ArrayType a) {
      DataType element = stringsAsBinary(a.getElementType());
      return element == a.getElementType() ? a : new ArrayType(withType(a.getElementField(), element));
    } else if (t instanceof MapType m) {
      DataType key = stringsAsBinary(m.getKeyType());
      DataType value = stringsAsBinary(m.getValueType());
      return key == m.getKeyType() && value == m.getValueType() ? m
          : new MapType(withType(m.getKeyField(), key), withType(m.getValueField(), value));
    }
    return t;
  }

  private static StructField withType(StructField f, DataType t) {
    return new StructField(f.getName(), t, f.isNullable(), f.getMetadata());
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

  private static final long NULL = 0x5bd1e995L;

  /** A value's hash: a non-null value is mixed, so no value hashes as null does (as 0x5bd1e995 itself did). */
  private static long value(ColumnVector v, int r) {
    return v.isNullAt(r) ? NULL : mix(raw(v, r) + 0x2545F4914F6CDD1DL);
  }

  private static long raw(ColumnVector v, int r) {
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
      return Float.floatToRawIntBits(v.getFloat(r));
    } else if (t instanceof DoubleType) {
      return Double.doubleToRawLongBits(v.getDouble(r));
    } else if (t instanceof StringType) {
      // the same hash as the binary the fingerprint's own reads give strings (stringsAsBinary)
      return bytes(v.getString(r).getBytes(StandardCharsets.UTF_8));
    } else if (t instanceof BinaryType) {
      return bytes(v.getBinary(r));
    } else if (t instanceof DecimalType) {
      // the unscaled digits and the scale: what toString() tells apart, without formatting it
      BigDecimal d = v.getDecimal(r);
      if (d.precision() <= 18) {
        // the unscaled digits as a long, without inflating a BigInteger
        return mix(d.movePointRight(d.scale()).longValue() * 31 + d.scale());
      }
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

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Eight bytes a step (a byte a step was a tenth of the verification's time on URL-like strings). */
  private static long bytes(byte[] b) {
    long h = b.length;
    int i = 0;
    for (; i + 8 <= b.length; i += 8) {
      h = (h + (long) LONGS.get(b, i)) * K;
      h ^= h >>> 29;
    }
    for (; i < b.length; i++) {
      h = (h + (b[i] & 0xff)) * K;
    }
    return mix(h);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }
}
