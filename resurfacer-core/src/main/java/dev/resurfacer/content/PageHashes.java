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
 * One flat Parquet column's values as {@link RowDigest#columnHash}es, decoded a block of rows at a
 * time straight from the page's bytes: definition levels and dictionary ids by a bulk
 * RLE/bit-packing decoder that keeps its place in the page, plain values by reading the
 * little-endian words in place, every dictionary entry hashed once per column chunk. Its arrays
 * hold one block ({@link #CHUNK} values), never a page: a rewrite's output pages hold a whole row
 * group (124,000 values from DuckDB), and page-sized arrays were 30 MB a digest, zeroed and faulted
 * in fresh (docs/benchmarks.md). A value's hash is the {@link ValueHash} of the
 * value a format's own reader returns for it (Iceberg's generic reader, Delta Kernel's), so both
 * formats' columnar digests equal their row-at-a-time ones. Encodings other than plain and
 * dictionary (the delta and byte-stream-split encodings of v2 writers) are decoded by parquet-java's
 * own values readers. A page's bytes must stay valid until its last value is read: {@link
 * PageDecompression} keeps an array per column. Not thread-safe: one per column per reading thread.
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

  /** Values decoded and folded at a time: a row block's ({@link ParquetRows#BLOCK}). */
  static final int CHUNK = 4096;

  /**
   * Whether a block's column hashes are added to its rows in the loop that makes them ({@link
   * #foldValues}): where the loops are scalar. The vector loops make them in passes of their own.
   */
  private static final boolean FOLD_AS_READ = !ValueHash.VECTOR_LOOPS;

  private PageReader pages;
  private long[] dictionary;
  private final Buffers buffers;
  private final Hybrid levels = new Hybrid();
  private final Hybrid ids = new Hybrid();

  /** The current page's values (nulls included) not yet handed out. */
  private int pageLeft;

  private Encoding encoding;
  /** The current page's value bytes: the next plain value at {@code dataPos}. */
  private byte[] data;

  private int dataPos;
  private int dataEnd;
  /** Plain booleans: the next value's bit, counted from {@code dataPos}. */
  private int bitIndex;
  /** Whether the current dictionary-encoded page's ids have been started (their bit width read). */
  private boolean idsStarted;
  /** The current page's values reader, for the encodings not read in place. */
  private ValuesReader reader;

  /** A column's decoding arrays, one block long, kept across the files of a digest. */
  public static final class Buffers {
    private final long[] hashes = new long[CHUNK];
    private final long[] values = new long[CHUNK];
    private final int[] defs = new int[CHUNK];
    private final int[] ids = new int[CHUNK];

    public Buffers() {}
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
    pageLeft = 0;
    data = null;
    reader = null;
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
      if (pageLeft == 0) {
        readPage();
        continue;
      }
      int k = Math.min(Math.min(n - done, pageLeft), CHUNK);
      int present = maxDef == 0 ? k : present(levels, k);
      if (present == k && block != null && FOLD_AS_READ && !block.anyDeleted()) {
        if (nullCount > 0) {
          Arrays.fill(nulls, done, done + k, false);
        }
        foldValues(block, index, done, k);
        pageLeft -= k;
        done += k;
        continue;
      }
      values(present);
      long[] hashes;
      if (present == k) {
        hashes = buffers.values;
        // the flags are read only when some row is null: cleared from the first null on
        if (nullCount > 0) {
          Arrays.fill(nulls, done, done + k, false);
        }
      } else {
        if (nullCount == 0) {
          Arrays.fill(nulls, 0, done, false);
        }
        hashes = buffers.hashes;
        int[] defs = buffers.defs;
        long[] values = buffers.values;
        for (int i = 0, j = 0; i < k; i++) {
          boolean isNull = defs[i] != maxDef;
          if (isNull) {
            hashes[i] = nullHash;
          } else {
            hashes[i] = values[j++];
          }
          nulls[done + i] = isNull;
        }
        nullCount += k - present;
      }
      if (block != null) {
        block.foldSegment(index, hashes, 0, done, k);
      } else {
        System.arraycopy(hashes, 0, out, done, k);
      }
      pageLeft -= k;
      done += k;
    }
    return nullCount;
  }

  /**
   * How many of the next {@code k} values {@code definitionLevels} gives are not null: a run of present values (a column
   * without nulls is one run a page) is skipped whole, else the levels are decoded into the buffers.
   */
  private int present(Hybrid definitionLevels, int k) {
    if (definitionLevels.skipRun(maxDef, k)) {
      return k;
    }
    int[] defs = buffers.defs;
    definitionLevels.read(defs, 0, k);
    int present = 0;
    for (int i = 0; i < k; i++) {
      present += defs[i] == maxDef ? 1 : 0;
    }
    return present;
  }

  /**
   * Every entry of the column chunk's dictionary hashed once. A plain-encoded dictionary (what
   * every writer stores) is read in place like a plain data page: parquet-java's dictionary made a
   * {@code Binary} and a copied array per entry of a binary or INT96 column, and its allocation,
   * copies and page faults were a third of a Delta compaction's verification, whose files
   * delta-spark writes with dictionary-encoded INT96 timestamps (docs/benchmarks.md).
   */
  private long[] dictionaryHashes(DictionaryPage dictionaryPage) {
    Encoding encodedAs = dictionaryPage.getEncoding();
    if ((encodedAs == Encoding.PLAIN || encodedAs == Encoding.PLAIN_DICTIONARY)
        && stored != Stored.BOOLEAN) {
      Bytes page = Bytes.of(dictionaryPage.getBytes());
      long[] hashes = new long[dictionaryPage.getDictionarySize()];
      // startRowGroup reads the chunk's first data page after this and sets these again
      data = page.b;
      dataPos = page.pos;
      dataEnd = page.end;
      bitIndex = 0;
      for (int done = 0; done < hashes.length; done += CHUNK) {
        int k = Math.min(CHUNK, hashes.length - done);
        plain(k);
        System.arraycopy(buffers.values, 0, hashes, done, k);
      }
      return hashes;
    }
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
    Bytes page;
    Bytes levelBytes = null;
    if (p instanceof DataPageV1 v1) {
      page = Bytes.of(v1.getBytes());
      encoding = v1.getValueEncoding();
      if (maxDef > 0) {
        if (v1.getDlEncoding() != Encoding.RLE) {
          throw new Unreadable(descriptor + " has " + v1.getDlEncoding() + " definition levels");
        }
        int from = page.pos + 4;
        int length = from > page.end ? -1 : (int) INTS.get(page.b, page.pos);
        if (length < 0 || length > page.end - from) {
          throw new IllegalStateException(
              descriptor + ": a page shorter than its definition levels");
        }
        levelBytes = new Bytes(page.b, from, from + length);
        page.pos = from + length;
      }
    } else if (p instanceof DataPageV2 v2) {
      if (v2.isCompressed()) {
        throw new Unreadable("a compressed page of " + descriptor + " reached the decoder");
      }
      encoding = v2.getDataEncoding();
      if (maxDef > 0) {
        levelBytes = Bytes.of(v2.getDefinitionLevels());
      }
      page = Bytes.of(v2.getData());
    } else {
      throw new Unreadable(descriptor + " has a page of an unknown kind");
    }
    if (levelBytes != null) {
      levels.reset(levelBytes.b, levelBytes.pos, levelBytes.end, defWidth);
    }
    data = page.b;
    dataPos = page.pos;
    dataEnd = page.end;
    bitIndex = 0;
    idsStarted = false;
    reader = null;
    switch (encoding) {
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (dictionary == null) {
          throw new IllegalStateException(
              descriptor + " has a dictionary-encoded page and no dictionary");
        }
      }
      case PLAIN -> {}
      default -> reader = valuesReader(levelBytes, count);
    }
    pageLeft = count;
  }

  /**
   * parquet-java's reader of the page's values, for an encoding not read in place; it is told how
   * many values the page holds, so the levels are counted first.
   */
  private ValuesReader valuesReader(Bytes levelBytes, int count) {
    int present = count;
    if (levelBytes != null) {
      Hybrid counting = new Hybrid();
      counting.reset(levelBytes.b, levelBytes.pos, levelBytes.end, defWidth);
      present = 0;
      for (int done = 0; done < count; done += CHUNK) {
        present += present(counting, Math.min(CHUNK, count - done));
      }
    }
    if (present == 0) {
      return null;
    }
    ValuesReader r;
    try {
      r = encoding.getValuesReader(descriptor, ValuesType.VALUES);
    } catch (UnsupportedOperationException | org.apache.parquet.io.ParquetDecodingException e) {
      throw new Unreadable(descriptor + " has " + encoding + " pages");
    }
    try {
      r.initFromPage(
          present, ByteBufferInputStream.wrap(ByteBuffer.wrap(data, dataPos, dataEnd - dataPos)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return r;
  }

  /** The column hashes of the page's next {@code n} non-null values, into the buffers. */
  private void values(int n) {
    if (n == 0) {
      return;
    }
    switch (encoding) {
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> dictionaryValues(n);
      case PLAIN -> plain(n);
      default -> decoded(n);
    }
  }

  /**
   * The column hashes of the page's next {@code n} values, none of them null, added to the rows of
   * {@code block} from {@code at} as they are made ({@link ValueHash#foldLittleEndian}): the
   * dictionary's and the plain types' that have a loop that reads a value once; the others' made
   * into the buffers and added after.
   */
  private void foldValues(RowBlock block, int index, int at, int n) {
    long[] rows = block.columnHashSums();
    long sum;
    switch (encoding) {
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        int[] id = dictionaryIds(n);
        long[] dict = dictionary;
        sum = 0;
        for (int i = 0; i < n; i++) {
          long h = dict[id[i]];
          rows[at + i] += h;
          sum += h;
        }
      }
      case PLAIN -> {
        int width = switch (stored) {
          case LONG, DOUBLE -> 8;
          case INT_AS_LONG, FLOAT -> 4;
          case DECIMAL_INT -> int32 ? 4 : 8;
          case UUID -> fixedLength == 16 ? 16 : -1;
          case BYTES -> fixedLength < 0 ? 0 : -1;
          default -> -1;
        };
        if (width < 0) {
          plain(n);
          block.foldSegment(index, buffers.values, 0, at, n);
          return;
        }
        byte[] b = data;
        int pos = dataPos;
        long m = multiplier;
        if (width == 0) {
          dataPos = stringLanes(b, pos, n, buffers.values);
          sum = ValueHash.foldBytes(buffers.values, buffers.hashes, buffers.ids, n, m, rows, at);
        } else {
          check(pos, dataEnd, n, width);
          long seed = switch (stored) {
            case DECIMAL_INT -> ValueHash.decimalSeed(scale);
            case DOUBLE -> ValueHash.seed(Kind.DOUBLE);
            case FLOAT -> ValueHash.seed(Kind.FLOAT);
            default -> ValueHash.seed(kind);
          };
          sum = switch (width) {
            case 4 -> ValueHash.foldLittleEndianInts(seed, b, pos, rows, at, n, m);
            case 8 -> ValueHash.foldLittleEndian(seed, b, pos, rows, at, n, m);
            default -> ValueHash.foldUuids(b, pos, rows, at, n, m);
          };
          dataPos = pos + width * n;
        }
      }
      default -> {
        values(n);
        block.foldSegment(index, buffers.values, 0, at, n);
        return;
      }
    }
    block.addColumnSum(index, sum);
  }

  /**
   * The next {@code n} values of a dictionary-encoded page: their ids, then each id's entry's hash.
   * A method of its own, as each plain type's loop is ({@link #plain}): compiled inside {@link
   * #values}, they made it one large method C2 compiled three times a run (docs/benchmarks.md).
   */
  private void dictionaryValues(int n) {
    int[] id = dictionaryIds(n);
    long[] dict = dictionary;
    long[] values = buffers.values;
    for (int i = 0; i < n; i++) {
      values[i] = dict[id[i]];
    }
  }

  /** The page's next {@code n} dictionary ids, into the buffers. */
  private int[] dictionaryIds(int n) {
    if (!idsStarted) {
      if (dataPos >= dataEnd) {
        throw new IllegalStateException(descriptor + ": a page shorter than its values");
      }
      ids.reset(data, dataPos + 1, dataEnd, data[dataPos] & 0xff);
      idsStarted = true;
    }
    int[] id = buffers.ids;
    ids.read(id, 0, n);
    return id;
  }

  /**
   * The next {@code n} plain values, from {@code dataPos} on. Each stored type has its own loop, with
   * nothing in it that differs by column: one loop shared by every type made C2 speculate on one
   * column's branches (a variable length, say), throw its code away at the next column's type and
   * compile it again, three times a run (docs/benchmarks.md). The fixed-width types share only the
   * hashing loops they end in ({@link ValueHash#mixAll}), which have no branch at all.
   */
  private void plain(int n) {
    byte[] b = data;
    int pos = dataPos;
    long m = multiplier;
    long[] values = buffers.values;
    switch (stored) {
      case LONG -> {
        check(pos, dataEnd, n, 8);
        dataPos = plainLongs(ValueHash.seed(kind), b, pos, n, values, m);
      }
      case INT_AS_LONG -> {
        check(pos, dataEnd, n, 4);
        dataPos = plainInts(ValueHash.seed(kind), b, pos, n, buffers.ids, values, m);
      }
      case DECIMAL_INT -> {
        check(pos, dataEnd, n, int32 ? 4 : 8);
        dataPos = int32
            ? plainInts(ValueHash.decimalSeed(scale), b, pos, n, buffers.ids, values, m)
            : plainLongs(ValueHash.decimalSeed(scale), b, pos, n, values, m);
      }
      case DOUBLE -> {
        check(pos, dataEnd, n, 8);
        dataPos = plainLongs(ValueHash.seed(Kind.DOUBLE), b, pos, n, values, m);
      }
      case FLOAT -> {
        check(pos, dataEnd, n, 4);
        dataPos = plainInts(ValueHash.seed(Kind.FLOAT), b, pos, n, buffers.ids, values, m);
      }
      case FLOAT_AS_DOUBLE -> {
        check(pos, dataEnd, n, 4);
        for (int i = 0; i < n; i++) {
          values[i] = m * ValueHash.ofDouble(Float.intBitsToFloat((int) INTS.get(b, pos + 4 * i)));
        }
        dataPos = pos + 4 * n;
      }
      case BOOLEAN -> {
        int first = bitIndex;
        if (pos + ((long) first + n + 7) / 8 > dataEnd) {
          throw new IllegalStateException(descriptor + ": a page shorter than its values");
        }
        for (int i = 0; i < n; i++) {
          int bit = first + i;
          values[i] = m * ValueHash.ofBoolean(((b[pos + (bit >>> 3)] >>> (bit & 7)) & 1) != 0);
        }
        bitIndex = first + n;
      }
      case BYTES ->
        dataPos = fixedLength < 0
            ? plainStrings(b, pos, n, values, m)
            : plainFixed(b, pos, n, fixedLength, values, m);
      case UUID -> {
        if (fixedLength == 16) {
          check(pos, dataEnd, n, 16);
          dataPos = plainUuids(b, pos, n, values, buffers.hashes, m);
        } else {
          dataPos = fixedLength < 0
              ? plainPrefixed(b, pos, n, values, m)
              : plainFixed(b, pos, n, fixedLength, values, m);
        }
      }
      case DECIMAL_BYTES ->
        dataPos = fixedLength < 0
            ? plainPrefixed(b, pos, n, values, m)
            : plainFixed(b, pos, n, fixedLength, values, m);
      case INT96_MICROS -> dataPos = plainFixed(b, pos, n, 12, values, m);
    }
  }

  /*
   * Each fixed-width type is read into the values array by a bulk copy or a plain loop, then hashed
   * there by ValueHash.mixAll, whose loops C2 turns into vector instructions: hashing each value as
   * it was read made one loop too large for that, and ran a value at a time (docs/benchmarks.md).
   */

  private static int plainLongs(long seed, byte[] b, int pos, int n, long[] values, long m) {
    if (ValueHash.VECTOR_LOOPS) {
      ByteBuffer.wrap(b, pos, 8 * n)
          .order(ByteOrder.LITTLE_ENDIAN)
          .asLongBuffer()
          .get(values, 0, n);
      ValueHash.mixAll(seed, values, n, m);
    } else {
      ValueHash.mixLittleEndian(seed, b, pos, values, n, m);
    }
    return pos + 8 * n;
  }

  /** Four-byte values, sign-extended as their readers' {@code int}s (a float's raw bits too). */
  private static int plainInts(
      long seed, byte[] b, int pos, int n, int[] ints, long[] values, long m) {
    if (ValueHash.VECTOR_LOOPS) {
      ByteBuffer.wrap(b, pos, 4 * n)
          .order(ByteOrder.LITTLE_ENDIAN)
          .asIntBuffer()
          .get(ints, 0, n);
      for (int i = 0; i < n; i++) {
        values[i] = ints[i];
      }
      ValueHash.mixAll(seed, values, n, m);
    } else {
      ValueHash.mixLittleEndianInts(seed, b, pos, values, n, m);
    }
    return pos + 4 * n;
  }

  /** Sixteen big-endian bytes each: {@link ValueHash#ofUuid} of their two halves. */
  private static int plainUuids(byte[] b, int pos, int n, long[] values, long[] low, long m) {
    if (!ValueHash.VECTOR_LOOPS) {
      ValueHash.mixUuids(b, pos, values, n, m);
      return pos + 16 * n;
    }
    for (int i = 0; i < n; i++) {
      int at = pos + 16 * i;
      values[i] = (long) BIG_LONGS.get(b, at);
      low[i] = (long) BIG_LONGS.get(b, at + 8);
    }
    ValueHash.mixAll(ValueHash.seed(Kind.UUID), values, n, 1);
    ValueHash.pairAll(values, low, n, m);
    return pos + 16 * n;
  }

  /**
   * Strings and binaries, each a four-byte little-endian length, then its bytes: their {@link
   * ValueHash#lanes} a string at a time, their final mixes a block at a time ({@link
   * ValueHash#finishBytes}).
   */
  private int plainStrings(byte[] b, int pos, int n, long[] values, long m) {
    int p = stringLanes(b, pos, n, values);
    ValueHash.finishBytes(values, buffers.hashes, buffers.ids, n, m);
    return p;
  }

  /**
   * The {@link ValueHash#lanes} of the {@code n} strings from {@code pos}: the first into {@code
   * first}, the second and the lengths into the buffers' hashes and ids. Returns where they end.
   */
  private int stringLanes(byte[] b, int pos, int n, long[] first) {
    long seed = ValueHash.seed(kind);
    long[] second = buffers.hashes;
    int[] lengths = buffers.ids;
    int end = dataEnd;
    int p = pos;
    for (int i = 0; i < n; i++) {
      int length = prefixedLength(b, p, end);
      p += 4;
      first[i] = ValueHash.lanes(seed, b, p, length, second, i);
      lengths[i] = length;
      p += length;
    }
    return p;
  }

  /** Values each a four-byte little-endian length, then its bytes: a decimal or a UUID stored as binary, hashed by {@link #bytes}. */
  private int plainPrefixed(byte[] b, int pos, int n, long[] values, long m) {
    int end = dataEnd;
    int p = pos;
    for (int i = 0; i < n; i++) {
      int length = prefixedLength(b, p, end);
      p += 4;
      values[i] = m * bytes(b, p, length);
      p += length;
    }
    return p;
  }

  /** The length a value's four bytes at {@code p} give, checked to end by {@code end}. */
  private int prefixedLength(byte[] b, int p, int end) {
    int length = p + 4 > end ? -1 : (int) INTS.get(b, p);
    if (length < 0 || length > end - p - 4) {
      throw new IllegalStateException(descriptor + ": a page shorter than its values");
    }
    return length;
  }

  /** Values of {@code length} bytes each, hashed by {@link #bytes}. */
  private int plainFixed(byte[] b, int pos, int n, int length, long[] values, long m) {
    check(pos, dataEnd, n, length);
    for (int i = 0; i < n; i++) {
      values[i] = m * bytes(b, pos + length * i, length);
    }
    return pos + length * n;
  }

  private void check(int pos, int end, int n, int width) {
    if (pos + (long) n * width > end) {
      throw new IllegalStateException(descriptor + ": a page shorter than its values");
    }
  }

  /** The next {@code n} values of an encoding this decoder does not read in place, by parquet-java's reader for it. */
  private void decoded(int n) {
    ValuesReader r = reader;
    long[] values = buffers.values;
    for (int i = 0; i < n; i++) {
      long h = switch (stored) {
        case BOOLEAN -> ValueHash.ofBoolean(r.readBoolean());
        case INT_AS_LONG -> ValueHash.ofLong(kind, r.readInteger());
        case LONG -> ValueHash.ofLong(kind, r.readLong());
        case FLOAT -> ValueHash.ofFloatBits(Float.floatToRawIntBits(r.readFloat()));
        case FLOAT_AS_DOUBLE -> ValueHash.ofDouble(r.readFloat());
        case DOUBLE -> ValueHash.ofDoubleBits(Double.doubleToRawLongBits(r.readDouble()));
        case DECIMAL_INT -> ValueHash.ofDecimal(scale, int32 ? r.readInteger() : r.readLong());
        case BYTES, UUID, DECIMAL_BYTES, INT96_MICROS -> binary(r.readBytes());
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
   * values into {@code out}.
   */
  static void hybrid(byte[] b, int pos, int end, int width, int[] out, int n) {
    Hybrid h = new Hybrid();
    h.reset(b, pos, end, width);
    h.read(out, 0, n);
  }

  /**
   * Parquet's RLE/bit-packing hybrid encoding read as many values at a time as asked, keeping its
   * place between reads: in a run of repeats, in a bit-packed run (with the rest of a group of
   * eight read part-way), or between runs.
   */
  static final class Hybrid {
    private byte[] b;
    private int pos;
    private int end;
    private int width;
    private int byteWidth;
    private BytePacker packer;
    /** Values left in the current run of repeats, and the value repeated. */
    private int runLeft;

    private int runValue;
    /** Groups of eight left in the current bit-packed run. */
    private int groupsLeft;

    private final int[] group = new int[8];
    /** The next value of {@link #group} not yet read; 8 when none is. */
    private int groupAt = 8;

    void reset(byte[] b, int pos, int end, int width) {
      if (width < 0 || width > 32) {
        throw new IllegalStateException("a bit width of " + width);
      }
      this.b = b;
      this.pos = pos;
      this.end = end;
      this.width = width;
      this.byteWidth = (width + 7) / 8;
      this.packer = PACKERS[width];
      runLeft = 0;
      groupsLeft = 0;
      groupAt = 8;
    }

    /** Skips the next {@code n} values if they are all {@code value}, in one run of repeats; else reads nothing. */
    boolean skipRun(int value, int n) {
      if (runLeft == 0 && groupsLeft == 0 && groupAt == 8 && pos < end) {
        header();
      }
      if (runLeft >= n && runValue == value) {
        runLeft -= n;
        return true;
      }
      return false;
    }

    /** The next {@code n} values, into {@code out} from {@code at}. */
    void read(int[] out, int at, int n) {
      while (n > 0) {
        if (groupAt < 8) {
          int k = Math.min(8 - groupAt, n);
          System.arraycopy(group, groupAt, out, at, k);
          groupAt += k;
          at += k;
          n -= k;
        } else if (runLeft > 0) {
          int k = Math.min(runLeft, n);
          Arrays.fill(out, at, at + k, runValue);
          runLeft -= k;
          at += k;
          n -= k;
        } else if (groupsLeft > 0) {
          if (n >= 8) {
            int g = Math.min(groupsLeft, n >>> 3);
            for (int i = 0; i < g; i++) {
              unpack(out, at);
              at += 8;
            }
            groupsLeft -= g;
            n -= 8 * g;
          } else {
            unpack(group, 0);
            groupsLeft--;
            groupAt = 0;
          }
        } else {
          header();
        }
      }
    }

    private void header() {
      if (pos >= end) {
        throw new IllegalStateException("RLE/bit-packed values end before the last one asked for");
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
        if (pos + byteWidth > end) {
          throw new IllegalStateException("a run of repeats past the end of its values");
        }
        int v = 0;
        for (int i = 0; i < byteWidth; i++) {
          v |= (b[pos++] & 0xff) << (8 * i);
        }
        runLeft = header >>> 1;
        runValue = v;
      } else {
        groupsLeft = header >>> 1;
      }
    }

    /** The next group of eight bit-packed values, into {@code out} from {@code at}. */
    private void unpack(int[] out, int at) {
      if (width == 0) {
        Arrays.fill(out, at, at + 8, 0);
      } else if (pos + width + 8 <= b.length && pos + width <= end) {
        unpack8(b, pos, width, out, at);
      } else if (pos + width <= end) {
        packer.unpack8Values(b, pos, out, at);
      } else {
        // a last group cut short by its writer: the missing bytes are padding
        byte[] padded = Arrays.copyOfRange(b, pos, pos + width);
        Arrays.fill(padded, Math.max(0, end - pos), width, (byte) 0);
        packer.unpack8Values(padded, 0, out, at);
      }
      pos += width;
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
    if (width <= 8) {
      // the eight values fit in the one word at pos (dictionary ids of up to 256 entries): half the
      // time of a word read per value
      long w = (long) LONGS.get(b, pos);
      for (int i = 0; i < 8; i++) {
        out[at + i] = (int) ((w >>> (i * width)) & mask);
      }
      return;
    }
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
