package dev.resurfacer.content;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * 64-bit hashes of single values, each tagged with its {@link Kind} so equal bits of different
 * types differ. Values are hashed in one canonical form whatever reader produced them: floats by
 * their raw bits (-0.0, +0.0 and every NaN payload differ), strings by their UTF-8 bytes,
 * decimals by scale and unscaled value, temporal values by their exact epoch units. A value's hash
 * is a bijection of the value, so {@link #ofNull} equals the hash of one value of its kind: a null
 * is told apart by where it is folded in, never by its hash alone ({@link RowDigest} counts a
 * column's nulls and marks them in the row's hash; {@link #nullField}, {@link #nullElement} and
 * {@link #nullEntry} fold a nested null on another path than any value). Nested values are hashed by {@link #struct},
 * {@link #list} and {@link #map} from their children's hashes.
 */
public final class ValueHash {
  /** The type tags; both formats map their types onto these. */
  public enum Kind {
    BOOLEAN,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    DATE,
    TIME,
    TIMESTAMP,
    TIMESTAMP_TZ,
    TIMESTAMP_NANO,
    TIMESTAMP_TZ_NANO,
    STRING,
    BINARY,
    FIXED,
    UUID,
    DECIMAL,
    STRUCT,
    LIST,
    MAP,
    OTHER;

    /** {@link ValueHash#seed}: made once, as every value of the kind a row-at-a-time reader hashes adds it. */
    private final long seed = finish(tag(ordinal()));
  }

  private static final long NULL_VALUE = 0x6a09e667f3bcc909L;
  private static final long NULL_MARK = 0xbb67ae8584caa73bL;
  private static final long K = 0x9E3779B97F4A7C15L;
  private static final long K2 = 0xC2B2AE3D27D4EB4FL;
  private static final long F1 = 0xff51afd7ed558ccdL;
  private static final long F2 = 0xc4ceb9fe1a85ec53L;
  private static final long LANE_SEED = 0x510e527fade682d1L;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle BIG_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Whether C2 may turn the hashing loops into vector code: bin/resurfacer turns that off where the
   * CPU has no vector 64-bit multiply, and says so here, so loops that only paid off as vectors give
   * way to scalar ones that read their values once.
   */
  static final boolean VECTOR_LOOPS = !"false".equals(System.getProperty("resurfacer.vectorLoops"));

  private ValueHash() {}

  private static long tag(Kind kind) {
    return tag(kind.ordinal());
  }

  private static long tag(int ordinal) {
    return (ordinal + 1L) * 0x100000001b3L;
  }

  public static long ofNull(Kind kind) {
    return ofLong(kind, NULL_VALUE);
  }

  public static long ofBoolean(boolean v) {
    return ofLong(Kind.BOOLEAN, v ? 1 : 2);
  }

  /** Any integral value of {@code kind}: ints, longs, dates (days), times and timestamps in the kind's units. */
  public static long ofLong(Kind kind, long v) {
    return ofSeeded(seed(kind), v);
  }

  /**
   * A fixed-width value added to its kind's {@link #seed} (or a decimal's {@link #decimalSeed}) and
   * spread: two multiplies, where a {@link #mix} takes three; a column's odd multiplier then folds
   * into the last ({@link #mixAll(long, long[], int, long)}), so a column hash of a fixed-width value
   * costs two (docs/benchmarks.md).
   */
  static long ofSeeded(long seed, long v) {
    return spread(v + seed) * F2;
  }

  public static long ofFloat(float v) {
    return ofFloatBits(Float.floatToRawIntBits(v));
  }

  /** A float by the raw bits a Parquet page stores. */
  public static long ofFloatBits(int bits) {
    return ofLong(Kind.FLOAT, bits);
  }

  public static long ofDouble(double v) {
    return ofDoubleBits(Double.doubleToRawLongBits(v));
  }

  /** A double by the raw bits a Parquet page stores. */
  public static long ofDoubleBits(long bits) {
    return ofLong(Kind.DOUBLE, bits);
  }

  public static long ofString(CharSequence s) {
    return ofBytes(Kind.STRING, s.toString().getBytes(StandardCharsets.UTF_8));
  }

  public static long ofBytes(Kind kind, byte[] b) {
    return ofBytes(kind, b, 0, b.length);
  }

  public static long ofBytes(Kind kind, ByteBuffer buf) {
    if (buf.hasArray()) {
      return ofBytes(kind, buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
    }
    byte[] b = new byte[buf.remaining()];
    buf.duplicate().get(b);
    return ofBytes(kind, b);
  }

  /**
   * Eight bytes a step in two lanes, the last sixteen bytes (or, below sixteen, the first and the
   * last eight; below eight, the bytes as one number) read whole even where they overlap bytes read
   * before: a byte a step was a tenth of the verification's time on URL-like strings, and one lane's
   * chain of multiplies and a byte-at-a-time tail most of what was left (docs/benchmarks.md). The
   * lanes and the length are summed and spread once ({@link #ofLanes}); with the length summed in,
   * an overlap cannot make two lengths' strings alike.
   */
  public static long ofBytes(Kind kind, byte[] b, int offset, int length) {
    long[] second = new long[1];
    long first = lanes(seed(kind), b, offset, length, second, 0);
    return ofLanes(first, second[0], length);
  }

  /**
   * A byte string's hash from its two {@link #lanes} and its length. The length is added on its
   * own, not started from in a lane: a lane that began at the length and added the first word made a
   * string with one more zero byte at its end hash as the same string with its first bit flipped
   * (ValueHashTest). Each lane ends in a multiply and a shift, so their sum needs only one spread.
   */
  private static long ofLanes(long first, long second, int length) {
    return spread(first + Long.rotateLeft(second, 31) + ((long) length << 32)) * F2;
  }

  /**
   * {@link #ofBytes}'s two lanes of a byte string of {@code kind}'s {@link #seed}, before its final
   * mixes: the first returned, the second into {@code second[at]}. {@link #finishBytes} ends a block
   * of them.
   */
  static long lanes(long seed, byte[] b, int offset, int length, long[] second, int at) {
    long h1 = seed;
    long h2 = LANE_SEED;
    int end = offset + length;
    if (length >= 16) {
      // whole blocks of sixteen before the last, then the last sixteen bytes, which overlap the
      // block before unless the length is a multiple of sixteen: no branch on what is left over,
      // which mispredicted on a column of varying lengths
      for (int i = offset; i + 16 < end; i += 16) {
        h1 = (h1 + (long) LONGS.get(b, i)) * K;
        h1 ^= h1 >>> 29;
        h2 = (h2 + (long) LONGS.get(b, i + 8)) * K2;
        h2 ^= h2 >>> 29;
      }
      h1 = (h1 + (long) LONGS.get(b, end - 16)) * K;
      h1 ^= h1 >>> 29;
      h2 = (h2 + (long) LONGS.get(b, end - 8)) * K2;
      h2 ^= h2 >>> 29;
    } else if (length >= 8) {
      h1 = (h1 + (long) LONGS.get(b, offset)) * K;
      h1 ^= h1 >>> 29;
      h2 = (h2 + (long) LONGS.get(b, end - 8)) * K2;
      h2 ^= h2 >>> 29;
    } else if (length > 0) {
      h2 = (h2 + tail(b, offset, length)) * K2;
      h2 ^= h2 >>> 29;
    }
    second[at] = h2;
    return h1;
  }

  /**
   * Replaces the first {@code n} of {@code first} by {@code m} times {@link #ofBytes} of the strings
   * whose {@link #lanes} they and {@code second} hold, of {@code lengths}. The final spread taken a
   * block at a time ({@link #mixAll}): in the string's own loop it lengthened a chain of
   * multiplies that varies in length with each string (docs/benchmarks.md).
   */
  static void finishBytes(long[] first, long[] second, int[] lengths, int n, long m) {
    for (int i = 0; i < n; i++) {
      first[i] += Long.rotateLeft(second[i], 31) + ((long) lengths[i] << 32);
    }
    mixAll(0, first, n, m);
  }

  /**
   * As {@link #finishBytes}, the hashes added to the {@code n} row sums from {@code at} in {@code
   * rows} as they are made ({@link #foldLittleEndian}); returns their sum.
   */
  static long foldBytes(
      long[] first, long[] second, int[] lengths, int n, long m, long[] rows, int at) {
    long last = F2 * m;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      long h = spread(first[i] + Long.rotateLeft(second[i], 31) + ((long) lengths[i] << 32)) * last;
      rows[at + i] += h;
      sum += h;
    }
    return sum;
  }

  /**
   * The {@code rest} (1 to 7) bytes from {@code i} as a little-endian number: read as the last word
   * of the array's eight bytes ending there, or starting there and masked, where the array holds
   * them; else a byte at a time. The same number whichever way is read.
   */
  private static long tail(byte[] b, int i, int rest) {
    int end = i + rest;
    if (end >= 8) {
      return (long) LONGS.get(b, end - 8) >>> (8 * (8 - rest));
    }
    if (i + 8 <= b.length) {
      return (long) LONGS.get(b, i) & ((1L << (8 * rest)) - 1);
    }
    long t = 0;
    for (int k = 0; k < rest; k++) {
      t |= (b[i + k] & 0xffL) << (8 * k);
    }
    return t;
  }

  /** Its high half's {@link #ofLong}, and the low half added to it and spread. */
  public static long ofUuid(long mostSignificant, long leastSignificant) {
    return spread(ofLong(Kind.UUID, mostSignificant) + leastSignificant) * F2;
  }

  /** A decimal whose unscaled value fits in a long. */
  public static long ofDecimal(int scale, long unscaled) {
    return ofUnscaled(decimalSeed(scale), unscaled);
  }

  /** What every decimal of {@code scale} starts from: hoisted out of a column's loop by a columnar reader. */
  public static long decimalSeed(int scale) {
    return mix(tag(Kind.DECIMAL), scale);
  }

  /** {@link #ofDecimal(int, long)} from its scale's {@link #decimalSeed}. */
  public static long ofUnscaled(long decimalSeed, long unscaled) {
    return ofSeeded(decimalSeed, unscaled);
  }

  /** A decimal by its unscaled two's-complement big-endian bytes (Parquet's fixed or binary decimals). */
  public static long ofDecimal(int scale, byte[] unscaledBigEndian) {
    return ofDecimal(scale, unscaledBigEndian, 0, unscaledBigEndian.length);
  }

  /** As {@link #ofDecimal(int, byte[])}, from {@code length} bytes of {@code b} at {@code offset}. */
  public static long ofDecimal(int scale, byte[] b, int offset, int length) {
    if (length <= 8) {
      long v = length == 0 ? 0 : b[offset];
      for (int i = 1; i < length; i++) {
        v = (v << 8) | (b[offset + i] & 0xff);
      }
      return ofDecimal(scale, v);
    }
    return ofDecimal(scale, new BigInteger(b, offset, length));
  }

  public static long ofDecimal(BigDecimal d) {
    return ofDecimal(d.scale(), d.unscaledValue());
  }

  private static long ofDecimal(int scale, BigInteger unscaled) {
    return unscaled.bitLength() < 64
        ? ofDecimal(scale, unscaled.longValue())
        : ofBytes(Kind.DECIMAL, unscaled.toByteArray()) ^ mix(~tag(Kind.DECIMAL), scale);
  }

  /** A value no kind above describes, by its text: the last resort, never used for the types either format writes. */
  public static long ofOther(String typeName, String text) {
    return ofString(typeName + ':' + text) ^ tag(Kind.OTHER);
  }

  /** The start of a struct's hash; fold each field in with {@link #field}, in the struct's field order. */
  public static long struct() {
    return tag(Kind.STRUCT);
  }

  /** Folds one field (its id, or its position where a format has no ids) into a struct's or a row's hash. */
  public static long field(long structHash, int fieldId, long valueHash) {
    return mix(structHash, mix(fieldId, valueHash));
  }

  /**
   * Folds a null field into a struct's hash: mixed in on its own step, so no value's hash folded by
   * {@link #field} gives the same result except by a collision that depends on the other fields.
   */
  public static long nullField(long structHash, int fieldId) {
    return mix(mix(structHash, NULL_MARK), fieldId);
  }

  /** The start of a list's hash; fold each element in order with {@link #element}. */
  public static long list(int size) {
    return mix(tag(Kind.LIST), size);
  }

  public static long element(long listHash, long elementHash) {
    return mix(listHash, elementHash);
  }

  /** Folds a null element into a list's hash (as {@link #nullField}). */
  public static long nullElement(long listHash) {
    return mix(mix(listHash, NULL_MARK), NULL_VALUE);
  }

  /** An entry of a map whose value is null (as {@link #nullField}). */
  public static long nullEntry(long keyHash) {
    return mix(mix(keyHash, NULL_MARK), NULL_VALUE);
  }

  /** One entry of a map: entries are summed, as a map's entry order is not part of its content. */
  public static long entry(long keyHash, long valueHash) {
    return mix(keyHash, valueHash);
  }

  /** A map's hash from the sum of its {@link #entry} hashes. */
  public static long map(int size, long entrySum) {
    return mix(mix(tag(Kind.MAP), size), entrySum);
  }

  /** Combines two 64-bit values (murmur3's finaliser over a rotate-multiply step). */
  public static long mix(long h, long x) {
    return finish(h * K + Long.rotateLeft(x * K2, 31));
  }

  private static long finish(long k) {
    k = spread(k) * F2;
    return k ^ (k >>> 33);
  }

  /**
   * murmur3's finaliser up to its last multiply: a bijection whose last step is that multiply, so
   * an odd multiplier after it folds into it.
   */
  private static long spread(long k) {
    k ^= k >>> 33;
    k *= F1;
    return k ^ (k >>> 33);
  }

  /**
   * What {@link #ofLong} adds a value of {@code kind} to: {@code ofLong(kind, v) == ofSeeded(seed(kind), v)}.
   * Spread from the kind's tag, so no two kinds' seeds differ by a small number.
   */
  static long seed(Kind kind) {
    return kind.seed;
  }

  /**
   * Replaces the first {@code n} values by {@code m * ofSeeded(seed, value)}: with {@link #seed}
   * their {@link #ofLong} (a double's raw bits: {@link #ofDoubleBits}), with {@link #decimalSeed}
   * their {@link #ofUnscaled}, times a column's odd multiplier, which folds into the spread's last
   * multiply. One short loop, which C2 turns into vector instructions where the CPU has a vector
   * 64-bit multiply (bin/resurfacer); an earlier mix and the multiply in one loop body were past
   * C2's unrolling limit, and ran a value at a time (docs/benchmarks.md).
   */
  static void mixAll(long seed, long[] values, int n, long m) {
    long last = F2 * m;
    for (int i = 0; i < n; i++) {
      values[i] = spread(values[i] + seed) * last;
    }
  }
  /**
   * {@link #mixAll} of the {@code n} little-endian longs at {@code pos} of {@code b}, read as it
   * hashes them: where no loop is vectorized (bin/resurfacer), copying them out first was a pass of
   * its own over every plain long a digest read.
   */
  static void mixLittleEndian(long seed, byte[] b, int pos, long[] values, int n, long m) {
    Arrays.fill(values, 0, n, 0);
    foldLittleEndian(seed, b, pos, values, 0, n, m);
  }

  /**
   * Adds {@link #mixLittleEndian}'s hashes to the {@code n} row sums from {@code at} in {@code rows}
   * as it makes them, and returns their sum: a block's column folded into its rows in the loop that
   * hashes it, where a second pass over the hashes took a tenth of what was left of verification
   * (docs/benchmarks.md).
   */
  static long foldLittleEndian(long seed, byte[] b, int pos, long[] rows, int at, int n, long m) {
    long last = F2 * m;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      long h = spread((long) LONGS.get(b, pos + 8 * i) + seed) * last;
      rows[at + i] += h;
      sum += h;
    }
    return sum;
  }

  /** As {@link #mixLittleEndian}, of four-byte values, sign-extended as their readers' ints. */
  static void mixLittleEndianInts(long seed, byte[] b, int pos, long[] values, int n, long m) {
    Arrays.fill(values, 0, n, 0);
    foldLittleEndianInts(seed, b, pos, values, 0, n, m);
  }

  /** As {@link #foldLittleEndian}, of four-byte values, sign-extended as their readers' ints. */
  static long foldLittleEndianInts(
      long seed, byte[] b, int pos, long[] rows, int at, int n, long m) {
    long last = F2 * m;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      long h = spread((int) INTS.get(b, pos + 4 * i) + seed) * last;
      rows[at + i] += h;
      sum += h;
    }
    return sum;
  }

  /**
   * {@code m} times the {@link #ofUuid} of each of the {@code n} UUIDs stored from {@code pos} as
   * sixteen big-endian bytes, in one pass where the vector loops take three.
   */
  static void mixUuids(byte[] b, int pos, long[] values, int n, long m) {
    Arrays.fill(values, 0, n, 0);
    foldUuids(b, pos, values, 0, n, m);
  }

  /** As {@link #foldLittleEndian}, of {@link #mixUuids}'s hashes. */
  static long foldUuids(byte[] b, int pos, long[] rows, int at, int n, long m) {
    long seed = Kind.UUID.seed;
    long last = F2 * m;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      int p = pos + 16 * i;
      long high = (long) BIG_LONGS.get(b, p);
      long low = (long) BIG_LONGS.get(b, p + 8);
      long h = spread(spread(high + seed) * F2 + low) * last;
      rows[at + i] += h;
      sum += h;
    }
    return sum;
  }

  /**
   * Replaces the first {@code n} of {@code high} by {@code m} times the {@link #ofUuid} of the
   * UUIDs whose high halves' {@link #ofLong} they hold and whose low halves {@code low} holds.
   */
  static void pairAll(long[] high, long[] low, int n, long m) {
    for (int i = 0; i < n; i++) {
      high[i] += low[i];
    }
    mixAll(0, high, n, m);
  }

  /** Replaces the first {@code n} of {@code h} by {@code finish(h[i] + salt)}: a block of {@link RowDigest} row hashes. */
  static void finishAll(long[] h, int n, long salt) {
    for (int i = 0; i < n; i++) {
      h[i] = finish(h[i] + salt);
    }
  }

  /** {@link #finishAll} of one value. */
  static long finish(long h, long salt) {
    return finish(h + salt);
  }
}
