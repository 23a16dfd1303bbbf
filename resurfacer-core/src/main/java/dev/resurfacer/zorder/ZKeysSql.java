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
    String exponent = "(" + e0 + " + CASE WHEN " + ax + " >= pow(2.0, " + e0 + " + 1) THEN 1 WHEN " + ax + " < pow(2.0, " + e0
        + ") THEN -1 ELSE 0 END)";
    String magnitude = "CASE WHEN isinf(" + x + ") THEN 9218868437227405312::UBIGINT"
        + " WHEN " + ax + " = 0 THEN 0::UBIGINT"
        + " WHEN " + ax + " < pow(2.0, -1022) THEN CAST(" + ax + " * pow(2.0, 1022) * pow(2.0, 52) AS UBIGINT)"
        + " ELSE (CAST(" + exponent + " + 1023 AS UBIGINT) << 52) | CAST((" + ax + " / pow(2.0, " + exponent + ") - 1) * pow(2.0, 52) AS UBIGINT)"
        + " END";
    return "CASE WHEN " + x + " IS NULL THEN NULL WHEN isnan(" + x + ") THEN 18444492273895866368::UBIGINT"
        + " WHEN signbit(" + x + ") THEN 9223372036854775807::UBIGINT - (" + magnitude + ")"
        + " ELSE 9223372036854775808::UBIGINT + (" + magnitude + ") END";
  }

  /** {@link ZKeys#ofString}: the first 8 bytes of the UTF-8 form, zero-padded. */
  public static String ofString(String x) {
    return "('0x' || rpad(left(hex(encode(" + x + ")), 16), 16, '0'))::UBIGINT";
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
   * the interleaving is bit (63 - t / n) of key (t % n), packed into UBIGINT chunks of 64 bits.
   * UBIGINT, not UHUGEINT: DuckDB's 128-bit integers are emulated, and 128-bit chunks made the
   * z-value about 8x more expensive to compute.
   */
  public static List<String> interleavedChunks(String keyPrefix, int n) {
    List<String> terms = new ArrayList<>();
    for (int chunk = 0; chunk * 64 < 64 * n; chunk++) {
      StringBuilder b = new StringBuilder("(");
      for (int t = chunk * 64; t < Math.min(64 * n, (chunk + 1) * 64); t++) {
        if (t > chunk * 64) {
          b.append(" | ");
        }
        int source = 63 - t / n;
        b.append("(((").append(keyPrefix).append(t % n).append(" >> ").append(source).append(") & 1::UBIGINT) << ")
            .append(63 - (t - chunk * 64)).append(')');
      }
      terms.add(b.append(')').toString());
    }
    return terms;
  }
}
