package dev.resurfacer.delta.compact;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.content.ValueHash;
import dev.resurfacer.content.ValueHash.Kind;
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
 * Delta's content verification: the {@link RowDigest} (shared with Iceberg) of a bin's live input
 * rows as Kernel reads them, and of its new files read back, computed on several threads as the
 * digests of disjoint parts add up. Values are hashed by {@link ValueHash} in their canonical forms
 * (floats by raw bits, strings by their UTF-8 bytes, decimals by scale and unscaled value); the
 * columns, and a struct's fields, by their position in the written schema, the same for both sides.
 */
final class ContentFingerprint {
  private final RowDigest.Builder digest;
  private final int columns;

  ContentFingerprint(int columns) {
    this.columns = columns;
    this.digest = new RowDigest.Builder(columns);
  }

  RowDigest value() {
    return digest.build();
  }

  /**
   * The sum of {@code one} over {@code items}, read on up to {@code threads} threads: the Kernel
   * reader decodes row by row on one core, and verification reads every input and output row.
   */
  static <T> RowDigest sum(List<T> items, int threads, Function<T, RowDigest> one) {
    if (threads <= 1 || items.size() <= 1) {
      return items.stream().map(one).reduce(RowDigest.NONE, RowDigest::plus);
    }
    try (Parts parts = new Parts(items, threads, one)) {
      return parts.value();
    }
  }

  /** Digests of parts, each computed on one of up to {@code threads} threads from the start; {@link #value} sums them. */
  static final class Parts implements AutoCloseable {
    private final ExecutorService pool;
    private final List<Future<RowDigest>> parts;

    <T> Parts(List<T> items, int threads, Function<T, RowDigest> one) {
      pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, items.size())), r -> {
        Thread t = new Thread(r, "delta-verify");
        t.setDaemon(true);
        return t;
      });
      parts = items.stream().map(i -> pool.submit(() -> one.apply(i))).toList();
    }

    RowDigest value() {
      RowDigest total = RowDigest.NONE;
      for (Future<RowDigest> part : parts) {
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
    return new Parts(
        bin.files(),
        work.verifyThreads(),
        f -> work.verificationCpu().measure(() -> KernelBinRunner.fingerprint(work, f)));
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
      fields.add(
          t == f.getDataType()
              ? f
              : new StructField(f.getName(), t, f.isNullable(), f.getMetadata()));
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
      return element == a.getElementType()
          ? a
          : new ArrayType(withType(a.getElementField(), element));
    } else if (t instanceof MapType m) {
      DataType key = stringsAsBinary(m.getKeyType());
      DataType value = stringsAsBinary(m.getValueType());
      return key == m.getKeyType() && value == m.getValueType()
          ? m
          : new MapType(withType(m.getKeyField(), key), withType(m.getValueField(), value));
    }
    return t;
  }

  private static StructField withType(StructField f, DataType t) {
    return new StructField(f.getName(), t, f.isNullable(), f.getMetadata());
  }

  /** Adds the selected rows of {@code batch}, reading only {@code names} (by name, one per digested column). */
  void add(ColumnarBatch batch, Optional<ColumnVector> selection, List<String> names) {
    if (Thread.currentThread().isInterrupted()) {
      throw new CancellationException("content verification cancelled");
    }
    if (names.size() != columns) {
      throw new IllegalStateException(
          names.size() + " columns fingerprinted, " + columns + " expected");
    }
    int[] ordinals = names.stream().mapToInt(c -> batch.getSchema().indexOf(c)).toArray();
    if (Arrays.stream(ordinals).anyMatch(i -> i < 0)) {
      throw new IllegalStateException(
          "a fingerprinted column is missing from " + batch.getSchema());
    }
    ColumnVector[] vectors =
        Arrays.stream(ordinals).mapToObj(batch::getColumnVector).toArray(ColumnVector[]::new);
    for (int r = 0; r < batch.getSize(); r++) {
      if (selection.isPresent()
          && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
        continue;
      }
      for (int c = 0; c < vectors.length; c++) {
        if (vectors[c].isNullAt(r)) {
          digest.nullColumn(c, c + 1, kind(vectors[c].getDataType()));
        } else {
          digest.column(c, c + 1, value(vectors[c], r));
        }
      }
      digest.endRow();
    }
  }

  /** The {@link ValueHash} kind of a Kernel type. */
  static ValueHash.Kind kind(DataType t) {
    if (t instanceof BooleanType) {
      return Kind.BOOLEAN;
    } else if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType) {
      return Kind.INT;
    } else if (t instanceof LongType) {
      return Kind.LONG;
    } else if (t instanceof DateType) {
      return Kind.DATE;
    } else if (t instanceof TimestampType) {
      return Kind.TIMESTAMP_TZ;
    } else if (t instanceof TimestampNTZType) {
      return Kind.TIMESTAMP;
    } else if (t instanceof FloatType) {
      return Kind.FLOAT;
    } else if (t instanceof DoubleType) {
      return Kind.DOUBLE;
    } else if (t instanceof StringType || t instanceof BinaryType) {
      // the fingerprint's own reads give strings as binary (stringsAsBinary): one kind for both
      return Kind.STRING;
    } else if (t instanceof DecimalType) {
      return Kind.DECIMAL;
    } else if (t instanceof StructType) {
      return Kind.STRUCT;
    } else if (t instanceof ArrayType) {
      return Kind.LIST;
    } else if (t instanceof MapType) {
      return Kind.MAP;
    }
    throw new IllegalStateException("cannot fingerprint a column of type " + t);
  }

  private static long value(ColumnVector v, int r) {
    DataType t = v.getDataType();
    Kind kind = kind(t);
    if (v.isNullAt(r)) {
      return ValueHash.ofNull(kind);
    }
    return switch (kind) {
      case BOOLEAN -> ValueHash.ofBoolean(v.getBoolean(r));
      case INT ->
        ValueHash.ofLong(
            kind,
            t instanceof ByteType
                ? v.getByte(r)
                : t instanceof ShortType ? v.getShort(r) : v.getInt(r));
      case DATE -> ValueHash.ofLong(kind, v.getInt(r));
      case LONG, TIMESTAMP, TIMESTAMP_TZ -> ValueHash.ofLong(kind, v.getLong(r));
      case FLOAT -> ValueHash.ofFloat(v.getFloat(r));
      case DOUBLE -> ValueHash.ofDouble(v.getDouble(r));
      case STRING ->
        t instanceof StringType
            ? ValueHash.ofString(v.getString(r))
            : ValueHash.ofBytes(Kind.STRING, v.getBinary(r));
      case DECIMAL -> ValueHash.ofDecimal(v.getDecimal(r));
      case STRUCT -> {
        StructType s = (StructType) t;
        long h = ValueHash.struct();
        for (int i = 0; i < s.length(); i++) {
          ColumnVector child = v.getChild(i);
          h = child.isNullAt(r)
              ? ValueHash.nullField(h, i + 1)
              : ValueHash.field(h, i + 1, value(child, r));
        }
        yield h;
      }
      case LIST -> {
        ArrayValue a = v.getArray(r);
        long h = ValueHash.list(a.getSize());
        for (int i = 0; i < a.getSize(); i++) {
          h = a.getElements().isNullAt(i)
              ? ValueHash.nullElement(h)
              : ValueHash.element(h, value(a.getElements(), i));
        }
        yield h;
      }
      case MAP -> {
        MapValue m = v.getMap(r);
        long entries = 0;
        for (int i = 0; i < m.getSize(); i++) {
          long key = value(m.getKeys(), i);
          entries += m.getValues().isNullAt(i)
              ? ValueHash.nullEntry(key)
              : ValueHash.entry(key, value(m.getValues(), i));
        }
        yield ValueHash.map(m.getSize(), entries);
      }
      default -> throw new IllegalStateException("cannot fingerprint a column of type " + t);
    };
  }
}
