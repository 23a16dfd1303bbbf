package dev.resurfacer.zorder;

import java.nio.charset.StandardCharsets;

/**
 * The z-value both formats order by (docs/ordering.md), free of any format's types: each column
 * contributes a 64-bit key that keeps the column's order when compared as an unsigned number, and
 * {@link #interleave} merges the keys' bits, most significant first, one bit from each column in
 * turn, into {@code 8 * n} bytes compared as unsigned bytes. A null contributes {@link #NULL}.
 * Iceberg's {@code ZValues} and Delta's z-order map their column types onto these keys.
 */
public final class ZKeys {
  /** The key of a null: nulls sort first. */
  public static final long NULL = 0L;

  private static final long SIGN = Long.MIN_VALUE;

  private ZKeys() {}

  /** false 0, true 2^63. */
  public static long ofBoolean(boolean v) {
    return v ? SIGN : 0L;
  }

  /** Any integral value (int, long, date days, timestamp micros, unscaled decimal): sign bit flipped. */
  public static long ofLong(long v) {
    return v ^ SIGN;
  }

  /** IEEE 754 bits of the double: sign bit flipped for positives, all bits flipped for negatives (canonical NaN after +inf). */
  public static long ofDouble(double v) {
    long bits = Double.doubleToLongBits(v);
    return bits < 0 ? ~bits : bits ^ SIGN;
  }

  /** The first 8 bytes of the UTF-8 form, zero-padded: longer strings tie on their first 8 bytes, as in Spark. */
  public static long ofString(String v) {
    return ofBytes(v.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The first 8 bytes, zero-padded, as an unsigned number: the order of unsigned byte-wise comparison
   * (binary, fixed, and a UUID's 16 big-endian bytes), with values that share their first 8 bytes
   * tied, as Spark's z-order truncates binary values.
   */
  public static long ofBytes(byte[] v) {
    long k = 0;
    for (int i = 0; i < 8; i++) {
      k = (k << 8) | (i < v.length ? v[i] & 0xFF : 0);
    }
    return k;
  }

  /** Interleaves keys: output bit t is bit (63 - t / n) of key (t % n). */
  public static byte[] interleave(long[] keys) {
    int n = keys.length;
    byte[] out = new byte[8 * n];
    for (int t = 0; t < 64 * n; t++) {
      long bit = (keys[t % n] >>> (63 - t / n)) & 1L;
      if (bit != 0) {
        out[t >>> 3] |= (byte) (0x80 >>> (t & 7));
      }
    }
    return out;
  }

  public static int compare(byte[] a, byte[] b) {
    return java.util.Arrays.compareUnsigned(a, b);
  }
}
