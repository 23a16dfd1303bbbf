package dev.resurfacer.content;

import dev.resurfacer.content.ValueHash.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * One flat Parquet column's values as {@link RowDigest#columnHash}es, decoded a whole page at a
 * time straight from the page's bytes: definition levels and dictionary ids by a bulk
 * RLE/bit-packing decoder, plain values by reading the little-endian words in place, every
 * dictionary entry hashed once per column chunk. A value's hash is the {@link ValueHash} of the
 * value a format's own reader returns for it (Iceberg's generic reader, Delta Kernel's), so both
 * formats' columnar digests equal their row-at-a-time ones. Encodings other than plain and
 * dictionary (the delta and byte-stream-split encodings of v2 writers) are decoded by parquet-java's
 * own values readers, still a page at a time. Not thread-safe: one per column per reading thread.
 */
public final class PageHashes {
  /** How a stored column's values become the canonical values {@link ValueHash} hashes. */
  public enum Stored {
    BOOLEAN,
    INT_AS_LONG,
    LONG,
    FLOAT,
    FLOAT_AS_DOUBLE,
    DOUBLE,
    BYTES,
    UUID,
    DECIMAL_INT,
    DECIMAL_BYTES,
    /** Spark's legacy INT96 timestamps as microseconds since the epoch, as Delta Kernel reads them (Julian day, nanos of day). */
    INT96_MICROS
  }

  /** The Julian day of 1970-01-01, as Spark and Kernel convert INT96 timestamps. */
  private static final long JULIAN_DAY_OF_EPOCH = 2440588;

  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle BIG_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final ColumnDescriptor descriptor;
  private final Stored stored;
  private final Kind kind;
  private final int scale;
  private final int fieldId;
  private final long multiplier;
  private final long nullHash;
  private final int maxDef;
  private final int defWidth;
  private final boolean int32;
  private final int fixedLength;

  private PageReader pages;
  private long[] dictionary;
  private final Buffers buffers;
  /** How many of the current page's column hashes ({@link Buffers#page}) there are, and were handed out. */
  private int pageSize;

  private int pagePos;
  /** How many of the current page's values are null. */
  private int pageNulls;

  /**
   * A column's decoding arrays, sized to the largest page met: kept across the files of a digest,
   * as allocating them per file was most of the reader's garbage.
   */
  public static final class Buffers {
    private long[] page = new long[0];
    private long[] values = new long[0];
    private int[] defs = new int[0];
    private int[] ids = new int[0];

    public Buffers() {}

    /** The page's hashes are its values' when none is null: swapped, not copied. */
    private void swap() {
      long[] t = page;
      page = values;
      values = t;
    }

    private void ensure(int count) {
      if (page.length < count) {
        // half again as much: a digest meets pages of many sizes, each growth a new set of arrays
        int size = Math.max(count, page.length + page.length / 2);
        page = new long[size];
        values = new long[size];
        defs = new int[size + 8];
        ids = new int[size + 8];
      }
    }
  }

  /**
   * A file this decoder cannot read exactly as the format's own reader reads it (a nested column,
   * an unknown page or level encoding): the caller digests it with that reader instead.
   */
  public static class Unreadable extends RuntimeException {
    public Unreadable(String why) {
      super(why, null, false, false);
    }
  }

  /**
   * @param fieldId the id the column's hashes are bound to ({@link RowDigest#columnHash})
   * @param buffers the column's decoding arrays, reused across files
   */
  public PageHashes(
      ColumnDescriptor descriptor,
      Stored stored,
      Kind kind,
      int scale,
      int fieldId,
      Buffers buffers) {
    if (descriptor.getMaxRepetitionLevel() != 0 || descriptor.getMaxDefinitionLevel() > 1) {
      throw new Unreadable(descriptor + " is not a flat column");
    }
    this.descriptor = descriptor;
    this.buffers = buffers;
    this.stored = stored;
    this.kind = kind;
    this.scale = scale;
    this.fieldId = fieldId;
    this.multiplier = RowDigest.multiplier(fieldId);
    this.nullHash = RowDigest.columnHash(fieldId, ValueHash.ofNull(kind));
    this.maxDef = descriptor.getMaxDefinitionLevel();
    this.defWidth = 32 - Integer.numberOfLeadingZeros(maxDef);
    this.int32 = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
    this.fixedLength = descriptor.getPrimitiveType().getPrimitiveTypeName()
            == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
        ? descriptor.getPrimitiveType().getTypeLength()
        : -1;
  }

  /** Starts a row group: its column chunk has its own pages and dictionary. */
  public void startRowGroup(PageReadStore rowGroup) {
    pages = rowGroup.getPageReader(descriptor);
    DictionaryPage dictionaryPage = pages.readDictionaryPage();
    dictionary = dictionaryPage == null ? null : dictionaryHashes(dictionaryPage);
    pageSize = 0;
    pagePos = 0;
    pageNulls = 0;
  }

  /** The field id the column's hashes are bound to. */
  public int fieldId() {
    return fieldId;
  }

  /**
   * The column hashes of the next {@code n} rows of the row group, into {@code out}; which of them
   * are null, into {@code nulls} (left alone when none is).
   *
   * @return how many of the {@code n} are null
   */
  public int next(long[] out, boolean[] nulls, int n) {
    return next(null, 0, out, nulls, n);
  }

  /**
   * Folds the column hashes of the next {@code n} rows straight into column {@code index} of
   * {@code block} (no copy), and which of them are null into {@code nulls}.
   *
   * @return how many of the {@code n} are null
   */
  int foldInto(RowBlock block, int index, boolean[] nulls, int n) {
    return next(block, index, null, nulls, n);
  }

  private int next(RowBlock block, int index, long[] out, boolean[] nulls, int n) {
    int done = 0;
    int nullCount = 0;
    while (done < n) {
      if (pagePos == pageSize) {
        readPage();
      }
      int k = Math.min(n - done, pageSize - pagePos);
      if (block != null) {
        block.foldSegment(index, buffers.page, pagePos, done, k);
      } else {
        System.arraycopy(buffers.page, pagePos, out, done, k);
      }
      if (pageNulls > 0) {
        int[] defs = buffers.defs;
        for (int i = 0; i < k; i++) {
          boolean isNull = defs[pagePos + i] != maxDef;
          nulls[done + i] = isNull;
          nullCount += isNull ? 1 : 0;
        }
      } else if (maxDef > 0) {
        Arrays.fill(nulls, done, done + k, false);
      }
      pagePos += k;
      done += k;
    }
    return nullCount;
  }

  private long[] dictionaryHashes(DictionaryPage dictionaryPage) {
    Dictionary d;
    try {
      d = dictionaryPage.getEncoding().initDictionary(descriptor, dictionaryPage);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] hashes = new long[d.getMaxId() + 1];
    for (int id = 0; id < hashes.length; id++) {
      long h = switch (stored) {
        case BOOLEAN -> ValueHash.ofBoolean(d.decodeToBoolean(id));
        case INT_AS_LONG -> ValueHash.ofLong(kind, d.decodeToInt(id));
        case LONG -> ValueHash.ofLong(kind, d.decodeToLong(id));
        case FLOAT -> ValueHash.ofFloatBits(Float.floatToRawIntBits(d.decodeToFloat(id)));
        case FLOAT_AS_DOUBLE -> ValueHash.ofDouble(d.decodeToFloat(id));
        case DOUBLE -> ValueHash.ofDoubleBits(Double.doubleToRawLongBits(d.decodeToDouble(id)));
        case DECIMAL_INT ->
          ValueHash.ofDecimal(scale, int32 ? d.decodeToInt(id) : d.decodeToLong(id));
        case BYTES, UUID, DECIMAL_BYTES, INT96_MICROS -> binary(d.decodeToBinary(id));
      };
      hashes[id] = multiplier * h;
    }
    return hashes;
  }

  private long binary(Binary b) {
    byte[] bytes = b.getBytesUnsafe();
    return bytes(bytes, 0, bytes.length);
  }

  private long bytes(byte[] b, int offset, int length) {
    return switch (stored) {
      case BYTES -> ValueHash.ofBytes(kind, b, offset, length);
      case UUID -> {
        if (length != 16) {
          throw new IllegalStateException("a UUID of " + length + " bytes in " + descriptor);
        }
        yield ValueHash.ofUuid(
            (long) BIG_LONGS.get(b, offset), (long) BIG_LONGS.get(b, offset + 8));
      }
      case DECIMAL_BYTES -> ValueHash.ofDecimal(scale, b, offset, length);
      case INT96_MICROS -> {
        if (length != 12) {
          throw new IllegalStateException("an INT96 of " + length + " bytes in " + descriptor);
        }
        long nanos = (long) LONGS.get(b, offset);
        long julianDay = (int) INTS.get(b, offset + 8);
        yield ValueHash.ofLong(
            kind, (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanos / 1000);
      }
      default -> throw new IllegalStateException(stored + " is not stored as bytes");
    };
  }

  private void readPage() {
    DataPage p = pages.readPage();
    if (p == null) {
      throw new IllegalStateException(descriptor + " ended before its row group's last row");
    }
    int count = p.getValueCount();
    if (count == 0) {
      return;
    }
    buffers.ensure(count);
    int nonNull;
    Encoding encoding;
    Bytes data;
    if (p instanceof DataPageV1 v1) {
      data = Bytes.of(v1.getBytes());
      encoding = v1.getValueEncoding();
      if (maxDef > 0) {
        if (v1.getDlEncoding() != Encoding.RLE) {
          throw new Unreadable(descriptor + " has " + v1.getDlEncoding() + " definition levels");
        }
        int length = (int) INTS.get(data.b, data.pos);
        data.pos += 4;
        nonNull = definitionLevels(data.b, data.pos, data.pos + length, count);
        data.pos += length;
      } else {
        nonNull = count;
      }
    } else if (p instanceof DataPageV2 v2) {
      if (v2.isCompressed()) {
        throw new Unreadable("a compressed page of " + descriptor + " reached the decoder");
      }
      encoding = v2.getDataEncoding();
      if (maxDef > 0) {
        Bytes levels = Bytes.of(v2.getDefinitionLevels());
        nonNull = definitionLevels(levels.b, levels.pos, levels.end, count);
      } else {
        nonNull = count;
      }
      data = Bytes.of(v2.getData());
    } else {
      throw new Unreadable(descriptor + " has a page of an unknown kind");
    }
    values(encoding, data, nonNull);
    if (nonNull == count) {
      buffers.swap();
    } else {
      for (int i = 0, j = 0; i < count; i++) {
        buffers.page[i] = buffers.defs[i] == maxDef ? buffers.values[j++] : nullHash;
      }
    }
    pageSize = count;
    pagePos = 0;
    pageNulls = count - nonNull;
  }

  /** Decodes the definition levels into the buffers; the number of non-null values. */
  private int definitionLevels(byte[] b, int pos, int end, int count) {
    hybrid(b, pos, end, defWidth, buffers.defs, count);
    int nonNull = 0;
    for (int i = 0; i < count; i++) {
      nonNull += buffers.defs[i] == maxDef ? 1 : 0;
    }
    return nonNull;
  }

  /** The column hashes of a page's {@code n} non-null values, into the buffers. */
  private void values(Encoding encoding, Bytes data, int n) {
    byte[] b = data.b;
    int pos = data.pos;
    switch (encoding) {
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (dictionary == null) {
          throw new IllegalStateException(
              descriptor + " has a dictionary-encoded page and no dictionary");
        }
        if (n == 0) {
          return;
        }
        hybrid(b, pos + 1, data.end, b[pos] & 0xff, buffers.ids, n);
        long[] dict = dictionary;
        for (int i = 0; i < n; i++) {
          buffers.values[i] = dict[buffers.ids[i]];
        }
      }
      case PLAIN -> plain(b, pos, data.end, n);
      default -> decoded(encoding, data, n);
    }
  }

  private void plain(byte[] b, int pos, int end, int n) {
    long m = multiplier;
    long[] values = buffers.values;
    switch (stored) {
      case LONG -> {
        check(pos, end, n, 8);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofLong(kind, (long) LONGS.get(b, pos + 8 * i));
        }
      }
      case INT_AS_LONG -> {
        check(pos, end, n, 4);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofLong(kind, (int) INTS.get(b, pos + 4 * i));
        }
      }
      case DECIMAL_INT -> {
        check(pos, end, n, int32 ? 4 : 8);
        long seed = ValueHash.decimalSeed(scale);
        for (int i = 0; i < n; i++) {
          long v = int32 ? (int) INTS.get(b, pos + 4 * i) : (long) LONGS.get(b, pos + 8 * i);
          values[i] = m * ValueHash.ofUnscaled(seed, v);
        }
      }
      case DOUBLE -> {
        check(pos, end, n, 8);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofDoubleBits((long) LONGS.get(b, pos + 8 * i));
        }
      }
      case FLOAT -> {
        check(pos, end, n, 4);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofFloatBits((int) INTS.get(b, pos + 4 * i));
        }
      }
      case FLOAT_AS_DOUBLE -> {
        check(pos, end, n, 4);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofDouble(Float.intBitsToFloat((int) INTS.get(b, pos + 4 * i)));
        }
      }
      case BOOLEAN -> {
        if (pos + (n + 7) / 8 > end) {
          throw new IllegalStateException(descriptor + ": a page shorter than its values");
        }
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofBoolean(((b[pos + (i >>> 3)] >>> (i & 7)) & 1) != 0);
        }
      }
      case BYTES, UUID, DECIMAL_BYTES, INT96_MICROS -> {
        int p = pos;
        for (int i = 0; i < n; i++) {
          int length = stored == Stored.INT96_MICROS ? 12 : fixedLength;
          if (length < 0) {
            length = (int) INTS.get(b, p);
            p += 4;
          }
          if (length < 0 || p + length > end) {
            throw new IllegalStateException(descriptor + ": a page shorter than its values");
          }
          values[i] = m * bytes(b, p, length);
          p += length;
        }
      }
    }
  }

  private void check(int pos, int end, int n, int width) {
    if (pos + (long) n * width > end) {
      throw new IllegalStateException(descriptor + ": a page shorter than its values");
    }
  }

  /** Values of the encodings this decoder does not read in place, by parquet-java's reader for them. */
  private void decoded(Encoding encoding, Bytes data, int n) {
    ValuesReader reader;
    try {
      reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
    } catch (UnsupportedOperationException | org.apache.parquet.io.ParquetDecodingException e) {
      throw new Unreadable(descriptor + " has " + encoding + " pages");
    }
    try {
      reader.initFromPage(
          n, ByteBufferInputStream.wrap(ByteBuffer.wrap(data.b, data.pos, data.end - data.pos)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] values = buffers.values;
    for (int i = 0; i < n; i++) {
      long h = switch (stored) {
        case BOOLEAN -> ValueHash.ofBoolean(reader.readBoolean());
        case INT_AS_LONG -> ValueHash.ofLong(kind, reader.readInteger());
        case LONG -> ValueHash.ofLong(kind, reader.readLong());
        case FLOAT -> ValueHash.ofFloatBits(Float.floatToRawIntBits(reader.readFloat()));
        case FLOAT_AS_DOUBLE -> ValueHash.ofDouble(reader.readFloat());
        case DOUBLE -> ValueHash.ofDoubleBits(Double.doubleToRawLongBits(reader.readDouble()));
        case DECIMAL_INT ->
          ValueHash.ofDecimal(scale, int32 ? reader.readInteger() : reader.readLong());
        case BYTES, UUID, DECIMAL_BYTES, INT96_MICROS -> binary(reader.readBytes());
      };
      values[i] = multiplier * h;
    }
  }

  private static final BytePacker[] PACKERS = new BytePacker[33];

  static {
    for (int w = 0; w <= 32; w++) {
      PACKERS[w] = Packer.LITTLE_ENDIAN.newBytePacker(w);
    }
  }

  /**
   * Decodes {@code n} values of Parquet's RLE/bit-packing hybrid encoding of {@code width}-bit
   * values into {@code out} (which has room for 8 more: bit-packed runs come in groups of 8).
   */
  static void hybrid(byte[] b, int pos, int end, int width, int[] out, int n) {
    if (width > 32) {
      throw new IllegalStateException("a bit width of " + width);
    }
    int byteWidth = (width + 7) / 8;
    BytePacker packer = PACKERS[width];
    int filled = 0;
    while (filled < n) {
      if (pos >= end) {
        throw new IllegalStateException("RLE/bit-packed values end after " + filled + " of " + n);
      }
      int header = 0;
      int shift = 0;
      byte x;
      do {
        x = b[pos++];
        header |= (x & 0x7f) << shift;
        shift += 7;
      } while ((x & 0x80) != 0 && pos < end);
      if ((header & 1) == 0) {
        int count = header >>> 1;
        int v = 0;
        for (int i = 0; i < byteWidth; i++) {
          v |= (b[pos++] & 0xff) << (8 * i);
        }
        int k = Math.min(count, n - filled);
        Arrays.fill(out, filled, filled + k, v);
        filled += k;
      } else {
        int groups = header >>> 1;
        for (int g = 0; g < groups && filled < n; g++) {
          if (width == 0) {
            Arrays.fill(out, filled, filled + 8, 0);
          } else if (pos + width + 8 <= b.length && pos + width <= end) {
            unpack8(b, pos, width, out, filled);
          } else if (pos + width <= end) {
            packer.unpack8Values(b, pos, out, filled);
          } else {
            // a last group cut short by its writer: the missing bytes are padding
            byte[] padded = Arrays.copyOfRange(b, pos, pos + width);
            Arrays.fill(padded, Math.max(0, end - pos), width, (byte) 0);
            packer.unpack8Values(padded, 0, out, filled);
          }
          pos += width;
          filled += 8;
        }
      }
    }
  }

  /**
   * Eight {@code width}-bit values packed least significant bit first, as parquet-java's
   * little-endian {@link BytePacker} unpacks them; reads a word past the group (the caller checks
   * the array holds it) and masks it off. One call site for every width, where the packers'
   * call was a virtual call per eight values that was the decoder's largest cost.
   */
  static void unpack8(byte[] b, int pos, int width, int[] out, int at) {
    long mask = (1L << width) - 1;
    for (int i = 0; i < 8; i++) {
      int bit = i * width;
      long w = (long) LONGS.get(b, pos + (bit >>> 3));
      out[at + i] = (int) ((w >>> (bit & 7)) & mask);
    }
  }

  /** A page's bytes on the heap: the array, where its data starts and ends. */
  private static final class Bytes {
    final byte[] b;
    int pos;
    final int end;

    private Bytes(byte[] b, int pos, int end) {
      this.b = b;
      this.pos = pos;
      this.end = end;
    }

    static Bytes of(BytesInput in) {
      try {
        ByteBuffer buf = in.toByteBuffer();
        if (buf.hasArray()) {
          return new Bytes(
              buf.array(), buf.arrayOffset() + buf.position(), buf.arrayOffset() + buf.limit());
        }
        byte[] copy = new byte[buf.remaining()];
        buf.duplicate().get(copy);
        return new Bytes(copy, 0, copy.length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
