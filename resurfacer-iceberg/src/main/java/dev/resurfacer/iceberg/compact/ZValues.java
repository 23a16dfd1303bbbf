package dev.resurfacer.iceberg.compact;

import dev.resurfacer.zorder.ZKeys;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The z-value Resurfacer orders by, on Iceberg's types; the arithmetic is {@link ZKeys} (resurfacer-core),
 * shared with Delta's z-order. Each column contributes a 64-bit key that preserves its order
 * when compared as an unsigned number; the keys' bits are interleaved most significant first, one
 * bit from each column in turn, into {@code 8 * n} bytes compared as unsigned bytes.
 *
 * <ul>
 *   <li>null: 0 (nulls first)</li>
 *   <li>boolean: false 0, true 2^63</li>
 *   <li>int, long, date (days), timestamp (microseconds), decimal up to 18 digits (unscaled):
 *       the two's-complement value with its sign bit flipped</li>
 *   <li>float, double: the IEEE 754 bits of the double, sign bit flipped for positives and all
 *       bits flipped for negatives (NaN, canonicalized, sorts after +infinity)</li>
 *   <li>string: the first 8 bytes of its UTF-8 form, zero-padded (longer strings tie on their
 *       first 8 bytes, as in Spark's z-order)</li>
 *   <li>binary, fixed: the first 8 bytes, zero-padded (as Spark's z-order truncates binary); uuid:
 *       the first 8 of its 16 big-endian bytes (its most significant half, unsigned)</li>
 * </ul>
 */
public final class ZValues {
  private ZValues() {}

  /** Why a column cannot take part in a z-order, or empty when it can. */
  public static Optional<String> unsupported(Types.NestedField field) {
    Type t = field.type();
    return switch (t.typeId()) {
      case BOOLEAN, INTEGER, LONG, DATE, TIMESTAMP, STRING, FLOAT, DOUBLE, BINARY, FIXED, UUID ->
        Optional.empty();
      case DECIMAL ->
        ((Types.DecimalType) t).precision() <= 18
            ? Optional.empty()
            : Optional.of("decimal precision above 18");
      default -> Optional.of("type " + t);
    };
  }

  /** The order-preserving key of one value (in Iceberg's generic representation). */
  public static long key(Type type, Object v) {
    if (v == null) {
      return ZKeys.NULL;
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ZKeys.ofBoolean((Boolean) v);
      case INTEGER -> ZKeys.ofLong(((Integer) v).longValue());
      case LONG -> ZKeys.ofLong((Long) v);
      case DATE ->
        ZKeys.ofLong(v instanceof LocalDate d ? d.toEpochDay() : ((Integer) v).longValue());
      case TIMESTAMP -> ZKeys.ofLong(micros(v));
      case DECIMAL -> ZKeys.ofLong(((BigDecimal) v).unscaledValue().longValueExact());
      case FLOAT, DOUBLE -> ZKeys.ofDouble(((Number) v).doubleValue());
      case STRING -> ZKeys.ofString(v.toString());
      case BINARY, FIXED -> ZKeys.ofBytes(bytes(v));
      case UUID -> ZKeys.ofBytes(uuidBytes(v));
      default -> throw new IllegalArgumentException("z-order does not support " + type);
    };
  }

  private static byte[] bytes(Object v) {
    if (v instanceof java.nio.ByteBuffer b) {
      return org.apache.iceberg.util.ByteBuffers.toByteArray(b);
    }
    return (byte[]) v;
  }

  /** Generic records hold a {@link java.util.UUID}; some readers hand over its 16 bytes. */
  private static byte[] uuidBytes(Object v) {
    if (v instanceof java.util.UUID u) {
      return java.nio.ByteBuffer.allocate(16)
          .putLong(u.getMostSignificantBits())
          .putLong(u.getLeastSignificantBits())
          .array();
    }
    return bytes(v);
  }

  static byte[] interleave(long[] keys) {
    return ZKeys.interleave(keys);
  }

  static byte[] zValue(List<Types.NestedField> columns, Object[] values) {
    long[] keys = new long[columns.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = key(columns.get(i).type(), values[i]);
    }
    return interleave(keys);
  }

  static int compareUnsigned(byte[] a, byte[] b) {
    return ZKeys.compare(a, b);
  }

  private static long micros(Object v) {
    if (v instanceof Long l) {
      return l;
    }
    if (v instanceof OffsetDateTime o) {
      return ChronoUnit.MICROS.between(
          OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), o);
    }
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), (LocalDateTime) v);
  }
}
