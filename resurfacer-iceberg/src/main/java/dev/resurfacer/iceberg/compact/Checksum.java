package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * An order-independent fingerprint of a multiset of rows, computed in one streaming pass from the
 * values Iceberg's own generic reader returns. Every value is hashed with its Iceberg type and field
 * id: floats by their raw bits (so -0.0, +0.0 and each NaN payload differ), strings by their
 * characters, binary by its bytes, temporal values by their exact epoch units, nested values field by
 * field id, maps as an unordered set of entries. Per top-level column the fingerprint keeps the sum
 * of its value hashes, so a mismatch names the columns that changed; per row it keeps the sum and xor
 * of the row hashes, so values moved between rows are caught too.
 */
final class Checksum {
  private static final long NULL_VALUE = 0x6a09e667f3bcc909L;
  /** Far below any row id or sequence number, with room for every row position of a file above it. */
  private static final long STORED_NULL = Long.MIN_VALUE / 2;

  private final long rows;
  private final long[] columns;
  private final long rowSum;
  private final long rowXor;

  private Checksum(long rows, long[] columns, long rowSum, long rowXor) {
    this.rows = rows;
    this.columns = columns;
    this.rowSum = rowSum;
    this.rowXor = rowXor;
  }

  long rows() {
    return rows;
  }

  /** The live rows of scan tasks, read with deletes applied. */
  static Checksum ofTasks(Table table, List<FileScanTask> tasks, Schema schema) {
    Accumulator acc = new Accumulator(schema);
    for (FileScanTask task : tasks) {
      try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema, true)) {
        // delete application may append columns it needed (such as _pos): only the projection counts
        rows.forEach(acc::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return acc.result();
  }

  /**
   * The rows of freshly written Parquet files as they are stored: every field id, and the row-lineage
   * values the rewrite wrote, null included. A null there means "assign at commit", which is what an
   * input row without lineage (written before the upgrade to v3) must get, so it must compare equal to
   * the null Iceberg's reader reports for that input row.
   */
  static Checksum ofFiles(Table table, List<String> locations, Schema schema) {
    Accumulator acc = new Accumulator(schema);
    // Iceberg's reader reads a lineage column only when it has an inherited value to fall back on,
    // and returns the fallback for a null it finds. Row ids and sequence numbers are never negative,
    // so a negative fallback marks exactly the nulls the file holds.
    Map<Integer, Object> lineage = Map.of(
        MetadataColumns.ROW_ID.fieldId(), STORED_NULL,
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(), STORED_NULL);
    List<Integer> lineagePositions = new ArrayList<>();
    for (int i = 0; i < schema.columns().size(); i++) {
      if (lineage.containsKey(schema.columns().get(i).fieldId())) {
        lineagePositions.add(i);
      }
    }
    for (String location : locations) {
      try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(location))
          .project(schema)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema, lineage))
          .reuseContainers()
          .build()) {
        for (Record row : rows) {
          for (int p : lineagePositions) {
            if (row.get(p) instanceof Long v && v < 0) {
              row.set(p, null);
            }
          }
          acc.add(row);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return acc.result();
  }

  /** How {@code output} differs from this (the input), or empty when the contents are equal. */
  Optional<String> differenceFrom(Checksum output, Schema schema) {
    if (rows != output.rows) {
      return Optional.of(rows + " live input rows, " + output.rows + " written");
    }
    List<String> changed = new ArrayList<>();
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] != output.columns[i]) {
        changed.add(schema.columns().get(i).name());
      }
    }
    if (!changed.isEmpty()) {
      return Optional.of("values differ in column" + (changed.size() > 1 ? "s " : " ") + String.join(", ", changed));
    }
    if (rowSum != output.rowSum || rowXor != output.rowXor) {
      return Optional.of("every column holds the same values, but they are combined into different rows");
    }
    return Optional.empty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Checksum c && rows == c.rows && rowSum == c.rowSum && rowXor == c.rowXor
        && Arrays.equals(columns, c.columns);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(rowSum ^ rowXor);
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%d rows, %016x/%016x", rows, rowSum, rowXor);
  }

  static final class Accumulator {
    private final List<Types.NestedField> fields;
    private final long[] columns;
    private long rows;
    private long rowSum;
    private long rowXor;

    Accumulator(Schema schema) {
      this.fields = schema.columns();
      this.columns = new long[fields.size()];
    }

    void add(StructLike row) {
      long rowHash = 0x243f6a8885a308d3L;
      for (int i = 0; i < columns.length; i++) {
        Types.NestedField f = fields.get(i);
        long h = mix(f.fieldId(), hash(f.type(), row.get(i, Object.class)));
        columns[i] += h;
        rowHash = mix(rowHash, h);
      }
      rows++;
      rowSum += rowHash;
      rowXor ^= mix(rowHash, 0x9e3779b97f4a7c15L);
    }

    Checksum result() {
      return new Checksum(rows, columns.clone(), rowSum, rowXor);
    }
  }

  /** A 64-bit hash of one value, tagged with its type so equal bits of different types differ. */
  static long hash(Type type, Object v) {
    long tag = type.typeId().ordinal() + 1L;
    if (v == null) {
      return mix(tag, NULL_VALUE);
    }
    return switch (type.typeId()) {
      case BOOLEAN -> mix(tag, (Boolean) v ? 1 : 2);
      case INTEGER -> mix(tag, ((Number) v).intValue());
      case LONG -> mix(tag, ((Number) v).longValue());
      case FLOAT -> mix(tag, Float.floatToRawIntBits((Float) v));
      case DOUBLE -> mix(tag, Double.doubleToRawLongBits((Double) v));
      case DATE -> mix(tag, v instanceof LocalDate d ? d.toEpochDay() : ((Number) v).longValue());
      case TIME -> mix(tag, v instanceof LocalTime t ? t.toNanoOfDay() : ((Number) v).longValue() * 1000);
      case TIMESTAMP, TIMESTAMP_NANO -> mix(tag, epochNanos(v));
      case STRING -> chars(tag, v.toString());
      case UUID -> v instanceof UUID u ? mix(mix(tag, u.getMostSignificantBits()), u.getLeastSignificantBits())
          : bytes(tag, v);
      case FIXED, BINARY -> bytes(tag, v);
      case DECIMAL -> {
        BigDecimal d = (BigDecimal) v;
        java.math.BigInteger unscaled = d.unscaledValue();
        yield unscaled.bitLength() < 64 ? mix(mix(tag, d.scale()), unscaled.longValue())
            : bytes(mix(~tag, d.scale()), unscaled.toByteArray());
      }
      case STRUCT -> {
        long h = tag;
        List<Types.NestedField> nested = type.asStructType().fields();
        StructLike s = (StructLike) v;
        for (int i = 0; i < nested.size(); i++) {
          h = mix(h, mix(nested.get(i).fieldId(), hash(nested.get(i).type(), s.get(i, Object.class))));
        }
        yield h;
      }
      case LIST -> {
        Type element = type.asListType().elementType();
        long h = mix(tag, ((List<?>) v).size());
        for (Object e : (List<?>) v) {
          h = mix(h, hash(element, e));
        }
        yield h;
      }
      case MAP -> {
        Types.MapType m = type.asMapType();
        long entries = 0;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          // entry order is not part of a map's content
          entries += mix(hash(m.keyType(), e.getKey()), hash(m.valueType(), e.getValue()));
        }
        yield mix(mix(tag, ((Map<?, ?>) v).size()), entries);
      }
      default -> chars(tag, v.getClass().getName() + ':' + v);
    };
  }

  private static long epochNanos(Object v) {
    if (v instanceof LocalDateTime t) {
      return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + t.getNano();
    }
    if (v instanceof OffsetDateTime t) {
      return t.toEpochSecond() * 1_000_000_000L + t.getNano();
    }
    return ((Number) v).longValue();
  }

  private static long chars(long tag, String s) {
    long h = mix(tag, s.length());
    for (int i = 0; i < s.length(); i++) {
      h = h * 0x100000001b3L + s.charAt(i);
    }
    return mix(h, s.length());
  }

  private static long bytes(long tag, Object v) {
    byte[] b;
    if (v instanceof ByteBuffer buf) {
      b = new byte[buf.remaining()];
      buf.duplicate().get(b);
    } else {
      b = (byte[]) v;
    }
    long h = mix(tag, b.length);
    for (byte x : b) {
      h = h * 0x100000001b3L + (x & 0xff);
    }
    return mix(h, b.length);
  }

  /** Combines two 64-bit values (murmur3's finaliser over a rotate-multiply step). */
  static long mix(long h, long x) {
    long k = h * 0x9e3779b97f4a7c15L + Long.rotateLeft(x * 0xc2b2ae3d27d4eb4fL, 31);
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }
}
