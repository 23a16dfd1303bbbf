package dev.resurfacer.iceberg.compact;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.content.ValueHash;
import dev.resurfacer.content.ValueHash.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The content digest of Iceberg rows ({@link RowDigest}, shared with Delta), computed in one
 * streaming pass from the values Iceberg's own generic reader returns: every value hashed with its
 * Iceberg type and field id ({@link #hash}), nested values field by field id, maps as an unordered
 * set of entries, the v3 row-lineage columns included when the schema has them.
 */
final class Checksum {
  private final RowDigest digest;

  private Checksum(RowDigest digest) {
    this.digest = digest;
  }

  long rows() {
    return digest.rows();
  }

  RowDigest digest() {
    return digest;
  }

  /** The live rows of scan tasks, read with deletes applied. */
  static Checksum ofTasks(Table table, List<FileScanTask> tasks, Schema schema) {
    Accumulator acc = new Accumulator(schema);
    for (FileScanTask task : tasks) {
      try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema, true)) {
        // delete application may append columns it needed (such as _pos): only the projection
        // counts
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
    for (String location : locations) {
      StoredRows.forEach(table, location, schema, (pos, row) -> acc.add(row));
    }
    return acc.result();
  }

  /** How {@code output} differs from this (the input), or empty when the contents are equal. */
  Optional<String> differenceFrom(Checksum output, Schema schema) {
    return digest.differenceFrom(
        output.digest, schema.columns().stream().map(Types.NestedField::name).toList());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Checksum c && digest.equals(c.digest);
  }

  @Override
  public int hashCode() {
    return digest.hashCode();
  }

  @Override
  public String toString() {
    return digest.toString();
  }

  static final class Accumulator {
    private final List<Types.NestedField> fields;
    private final RowDigest.Builder digest;

    Accumulator(Schema schema) {
      this.fields = schema.columns();
      this.digest = new RowDigest.Builder(fields.size());
    }

    void add(StructLike row) {
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField f = fields.get(i);
        Object v = row.get(i, Object.class);
        if (v == null) {
          digest.nullColumn(i, f.fieldId(), kind(f.type()));
        } else {
          digest.column(i, f.fieldId(), hash(f.type(), v));
        }
      }
      digest.endRow();
    }

    Checksum result() {
      return new Checksum(digest.build());
    }
  }

  /** The {@link ValueHash} kind of an Iceberg type. */
  static ValueHash.Kind kind(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> Kind.BOOLEAN;
      case INTEGER -> Kind.INT;
      case LONG -> Kind.LONG;
      case FLOAT -> Kind.FLOAT;
      case DOUBLE -> Kind.DOUBLE;
      case DATE -> Kind.DATE;
      case TIME -> Kind.TIME;
      case TIMESTAMP ->
        ((Types.TimestampType) type).shouldAdjustToUTC() ? Kind.TIMESTAMP_TZ : Kind.TIMESTAMP;
      case TIMESTAMP_NANO ->
        ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? Kind.TIMESTAMP_TZ_NANO
            : Kind.TIMESTAMP_NANO;
      case STRING -> Kind.STRING;
      case UUID -> Kind.UUID;
      case FIXED -> Kind.FIXED;
      case BINARY -> Kind.BINARY;
      case DECIMAL -> Kind.DECIMAL;
      case STRUCT -> Kind.STRUCT;
      case LIST -> Kind.LIST;
      case MAP -> Kind.MAP;
      default -> Kind.OTHER;
    };
  }

  /**
   * A value's {@link ValueHash} in its canonical form: temporal values in the exact units Iceberg
   * stores them (days, microseconds of day, epoch microseconds or nanoseconds), UUIDs by their two
   * halves, decimals by scale and unscaled value.
   */
  static long hash(Type type, Object v) {
    Kind kind = kind(type);
    if (v == null) {
      return ValueHash.ofNull(kind);
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ValueHash.ofBoolean((Boolean) v);
      case INTEGER, LONG -> ValueHash.ofLong(kind, ((Number) v).longValue());
      case FLOAT -> ValueHash.ofFloat((Float) v);
      case DOUBLE -> ValueHash.ofDouble((Double) v);
      case DATE ->
        ValueHash.ofLong(
            kind, v instanceof LocalDate d ? d.toEpochDay() : ((Number) v).longValue());
      case TIME ->
        ValueHash.ofLong(
            kind, v instanceof LocalTime t ? t.toNanoOfDay() / 1000 : ((Number) v).longValue());
      case TIMESTAMP -> ValueHash.ofLong(kind, epochNanos(v) / 1000);
      case TIMESTAMP_NANO -> ValueHash.ofLong(kind, epochNanos(v));
      case STRING -> ValueHash.ofString((CharSequence) v);
      case UUID ->
        v instanceof UUID u
            ? ValueHash.ofUuid(u.getMostSignificantBits(), u.getLeastSignificantBits())
            : uuidBytes(v);
      case FIXED, BINARY ->
        v instanceof ByteBuffer b
            ? ValueHash.ofBytes(kind, b)
            : ValueHash.ofBytes(kind, (byte[]) v);
      case DECIMAL -> ValueHash.ofDecimal((BigDecimal) v);
      case STRUCT -> {
        long h = ValueHash.struct();
        List<Types.NestedField> nested = type.asStructType().fields();
        StructLike s = (StructLike) v;
        for (int i = 0; i < nested.size(); i++) {
          Object child = s.get(i, Object.class);
          h = child == null
              ? ValueHash.nullField(h, nested.get(i).fieldId())
              : ValueHash.field(h, nested.get(i).fieldId(), hash(nested.get(i).type(), child));
        }
        yield h;
      }
      case LIST -> {
        Type element = type.asListType().elementType();
        long h = ValueHash.list(((List<?>) v).size());
        for (Object e : (List<?>) v) {
          h = e == null ? ValueHash.nullElement(h) : ValueHash.element(h, hash(element, e));
        }
        yield h;
      }
      case MAP -> {
        Types.MapType m = type.asMapType();
        long entries = 0;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          long key = hash(m.keyType(), e.getKey());
          entries += e.getValue() == null
              ? ValueHash.nullEntry(key)
              : ValueHash.entry(key, hash(m.valueType(), e.getValue()));
        }
        yield ValueHash.map(((Map<?, ?>) v).size(), entries);
      }
      default -> ValueHash.ofOther(v.getClass().getName(), String.valueOf(v));
    };
  }

  private static long uuidBytes(Object v) {
    ByteBuffer b = v instanceof ByteBuffer buf
        ? buf.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN)
        : ByteBuffer.wrap((byte[]) v);
    return ValueHash.ofUuid(b.getLong(b.position()), b.getLong(b.position() + 8));
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
}
