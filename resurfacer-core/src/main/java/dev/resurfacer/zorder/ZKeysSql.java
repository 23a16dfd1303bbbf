package dev.resurfacer.zorder;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link ZKeys} as DuckDB SQL, for the runners that order inside DuckDB (Iceberg's and Delta's):
 * each key expression yields the same unsigned 64-bit key as its {@code ZKeys} method, and
 * {@link #interleavedChunks} the interleaved z-value as 64-bit chunks that compare, in order, as
 * {@link ZKeys#compare} compares the interleaved bytes. Null inputs give null keys: callers
 * {@code COALESCE} them to {@link ZKeys#NULL}.
 */
public final class ZKeysSql {
  private ZKeysSql() {}

  /** {@link ZKeys#ofBoolean}. */
  public static String ofBoolean(String x) {
    return "CASE WHEN " + x + " THEN 9223372036854775808::UBIGINT ELSE 0::UBIGINT END";
  }

  /** {@link ZKeys#ofLong} of any integral SQL expression. */
  public static String ofLong(String x) {
    return "(CAST(" + x + " AS HUGEINT) + 9223372036854775808)::UBIGINT";
  }

  /**
   * {@link ZKeys#ofDouble} of a DOUBLE expression (a FLOAT widens exactly). DuckDB cannot
   * reinterpret a double's bits, so they are computed: exponent from log2, corrected by one either
   * way, and mantissa by exact scaling by powers of two (subnormals scaled by 2^1022, then 2^52),
   * so every step is exact. NaN is Java's canonical NaN; -0.0 sorts before +0.0 by its sign bit.
   */
  public static String ofDouble(String x) {
    String ax = "abs(" + x + ")";
    String e0 = "CAST(floor(log2(" + ax + ")) AS INTEGER)";
    String exponent = "(" + e0 + " + CASE WHEN " + ax + " >= pow(2.0, " + e0 + " + 1) THEN 1 WHEN "
        + ax + " < pow(2.0, " + e0 + ") THEN -1 ELSE 0 END)";
    String magnitude = "CASE WHEN isinf(" + x + ") THEN 9218868437227405312::UBIGINT"
        + " WHEN " + ax + " = 0 THEN 0::UBIGINT"
        + " WHEN " + ax + " < pow(2.0, -1022) THEN CAST(" + ax
        + " * pow(2.0, 1022) * pow(2.0, 52) AS UBIGINT)"
        + " ELSE (CAST(" + exponent + " + 1023 AS UBIGINT) << 52) | CAST((" + ax + " / pow(2.0, "
        + exponent + ") - 1) * pow(2.0, 52) AS UBIGINT)"
        + " END";
    return "CASE WHEN " + x + " IS NULL THEN NULL WHEN isnan(" + x
        + ") THEN 18444492273895866368::UBIGINT"
        + " WHEN signbit(" + x + ") THEN 9223372036854775807::UBIGINT - (" + magnitude + ")"
        + " ELSE 9223372036854775808::UBIGINT + (" + magnitude + ") END";
  }

  /** {@link ZKeys#ofString}: the first 8 bytes of the UTF-8 form, zero-padded. */
  public static String ofString(String x) {
    return "('0x' || rpad(left(hex(encode(" + x + ")), 16), 16, '0'))::UBIGINT";
  }

  /** {@link ZKeys#ofBytes} of a BLOB: its first 8 bytes, zero-padded. */
  public static String ofBytes(String x) {
    return "('0x' || rpad(left(hex(" + x + "), 16), 16, '0'))::UBIGINT";
  }

  /** {@link ZKeys#ofBytes} of a UUID's 16 big-endian bytes: the first 16 hex digits of its text form. */
  public static String ofUuid(String x) {
    return "('0x' || left(replace(CAST(" + x + " AS VARCHAR), '-', ''), 16))::UBIGINT";
  }

  /** {@link ZKeys#ofLong} of a date's days since 1970-01-01. */
  public static String ofDate(String x) {
    return ofLong("date_diff('day', DATE '1970-01-01', " + x + ")");
  }

  /** {@link ZKeys#ofLong} of a timestamp's microseconds since the epoch (the session time zone is UTC). */
  public static String ofTimestamp(String x) {
    return ofLong("epoch_us(" + x + ")");
  }

  /** {@link ZKeys#ofLong} of a decimal's unscaled value. */
  public static String ofDecimal(String x, int scale) {
    return ofLong(x + " * " + java.math.BigInteger.TEN.pow(scale));
  }

  /**
   * ORDER BY terms for the z-value of {@code n} key columns named {@code keyPrefix + i}: bit t of
   * the interleaving (from the top) is bit (63 - t / n) of key (t % n), packed into UBIGINT chunks
   * of 64 bits. UBIGINT, not UHUGEINT: DuckDB's 128-bit integers are emulated, and 128-bit chunks
   * made the z-value about 8x more expensive to compute. Each key's share of a chunk is spread
   * with a few mask-and-shift steps rather than bit by bit: 64 single-bit terms per chunk cost
   * DuckDB more than the sort itself.
   */
  public static List<String> interleavedChunks(String keyPrefix, int n) {
    List<String> terms = new ArrayList<>();
    for (int chunk = 0; chunk < n; chunk++) {
      // counted from the least significant bit of the whole 64n-bit z-value, key j's bit b sits
      // at b * n + (n - 1 - j); this chunk holds positions [low, low + 64)
      int low = 64 * (n - 1 - chunk);
      List<String> parts = new ArrayList<>();
      for (int j = 0; j < n; j++) {
        int offset = n - 1 - j;
        int first = Math.max(0, Math.floorDiv(low - offset + n - 1, n));
        int last = Math.min(63, Math.floorDiv(low + 63 - offset, n));
        if (first > last) {
          continue;
        }
        int bits = last - first + 1;
        String x = "(" + keyPrefix + j + (first == 0 ? "" : " >> " + first) + ")";
        if (bits < 64) {
          x = "(" + x + " & " + unsigned((1L << bits) - 1) + ")";
        }
        String spread = spread(x, bits, n);
        int shift = first * n + offset - low;
        parts.add(shift == 0 ? spread : "(" + spread + " << " + shift + ")");
      }
      terms.add("(" + String.join(" | ", parts) + ")");
    }
    return terms;
  }

  /**
   * {@code x}'s low {@code bits} bits moved so that bit i lands on bit i * n: one step per power of
   * two k (largest first) moves the bits whose index has k set by k * (n - 1). Only the moving bits
   * are shifted, so nothing crosses bit 63 (DuckDB refuses an overflowing shift) or lands on another.
   */
  private static String spread(String x, int bits, int n) {
    if (n == 1) {
      return x;
    }
    String e = x;
    for (int k = Integer.highestOneBit(bits - 1); k >= 1; k >>= 1) {
      long stay = 0;
      long move = 0;
      for (int i = 0; i < bits; i++) {
        // where bit i is before this step: moved already by the larger powers of two set in its
        // index
        int at = i + (n - 1) * (i & ~(2 * k - 1));
        if ((i & k) != 0) {
          move |= 1L << at;
        } else {
          stay |= 1L << at;
        }
      }
      e = "((" + e + " & " + unsigned(stay) + ") | ((" + e + " & " + unsigned(move) + ") << "
          + k * (n - 1) + "))";
    }
    return e;
  }

  private static String unsigned(long v) {
    return Long.toUnsignedString(v) + "::UBIGINT";
  }
}
