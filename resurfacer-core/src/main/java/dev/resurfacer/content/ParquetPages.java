package dev.resurfacer.content;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet file's row groups and pages, read for a digest with none of parquet-java's per-file and
 * per-page machinery: the footer's row groups and every page header are decoded here from the
 * Thrift compact bytes, only the fields a digest needs, and the schema is converted by parquet-java
 * once per distinct schema a {@link DigestScratch} meets. parquet-java's reader turned each footer
 * into its object model (statistics, encoding stats, interned strings) and checked each page header
 * with a formatted message, on a thread the JIT had not warmed: a quarter of the input side's CPU
 * in a verified compaction of 1,000 small files (docs/benchmarks.md). A file of up to {@link
 * #WHOLE_FILE} bytes (the scratch's setting) is read in one call, a larger one a row group at a time. Anything this reader does not read exactly as
 * parquet-java would (encryption, chunks in other files, an unknown page kind) is {@link
 * PageHashes.Unreadable}, and the caller digests the file with the format's own reader.
 *
 * <p>Pages come out as parquet-java's page objects, decompressed through the scratch's {@link
 * PageDecompression}: valid until the next page of the same column is read, which {@link
 * PageHashes} allows for. Not thread-safe, as its scratch.
 */
public final class ParquetPages implements AutoCloseable {
  /** Files up to this size are read whole at open: an input file of a compaction is usually one read. */
  static final int WHOLE_FILE = 8 << 20;

  /** What is copied to parse a page header at first: headers without statistics take a few dozen bytes. */
  private static final int HEADER_BYTES = 256;

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);
  private static final Encoding[] ENCODINGS = encodings();

  private final String name;
  private final SeekableInputStream in;
  private final DigestScratch scratch;
  private final ChunkBuffers buffers;
  private final MessageType schema;
  private final List<RowGroup> rowGroups;
  /** The whole file when it was read at open, else null; handed back on close. */
  private ByteBuffer whole;

  /**
   * Per chunk place in a row group, the largest chunk there uncompressed: no page of that place is
   * larger, so its decompression array grows no further ({@link PageDecompression}).
   */
  private final long[] slotBounds;

  private int next;

  /** Page headers are parsed from a copy here ({@link ChunkPages#header}). */
  private byte[] headerBytes = new byte[HEADER_BYTES];

  /** @param whole the whole file, read, or null when it is too large to be */
  private ParquetPages(
      String name, SeekableInputStream in, long length, DigestScratch scratch, ByteBuffer whole)
      throws IOException {
    this.name = name;
    this.in = in;
    this.scratch = scratch;
    this.buffers = chunkBuffers(scratch);
    this.whole = whole;
    byte[] tail = new byte[8];
    if (whole != null) {
      whole.get((int) length - 8, tail);
    } else {
      read(in, length - 8, ByteBuffer.wrap(tail));
    }
    if (Arrays.equals(tail, 4, 8, ENCRYPTED_MAGIC, 0, 4)) {
      throw new PageHashes.Unreadable(name + " has an encrypted footer");
    }
    if (!Arrays.equals(tail, 4, 8, MAGIC, 0, 4)) {
      throw new IOException(name + " is not a Parquet file: no magic number at its end");
    }
    int footerLength =
        (tail[0] & 0xff) | (tail[1] & 0xff) << 8 | (tail[2] & 0xff) << 16 | (tail[3] & 0xff) << 24;
    long footerStart = length - 8 - footerLength;
    if (footerLength < 0 || footerStart < 4) {
      throw new IOException(
          name + ": a footer of " + footerLength + " bytes in a file of " + length);
    }
    // the footer on the heap, where its Thrift bytes are parsed, the whole file read or not
    byte[] footer = new byte[footerLength];
    if (whole != null) {
      whole.get((int) footerStart, footer);
    } else {
      read(in, footerStart, ByteBuffer.wrap(footer));
    }
    int footerAt = 0;
    FileMetaData meta =
        FileMetaData.read(new Compact(footer, footerAt, footerAt + footerLength), name);
    byte[] footerBytes = footer;
    int footerFrom = footerAt;
    this.schema = scratch.schema(meta.schemaKey(footer), () -> {
      try {
        return new ParquetMetadataConverter(
                // its own options each time, as parquet-java's readers have theirs: a
                // configuration is a mutable map, and digests run on several threads
                ParquetReadOptions.builder(new PlainParquetConfiguration()).build())
            .readParquetMetadata(
                // the stream class parquet-java's own footer reads use (the run's other footers): a
                // second class at thrift's read made C2 drop and recompile its whole footer parser
                // (0.25 s of compile time a run, docs/benchmarks.md)
                ByteBufferInputStream.wrap(ByteBuffer.wrap(footerBytes, footerFrom, footerLength)),
                ParquetMetadataConverter.SKIP_ROW_GROUPS)
            .getFileMetaData()
            .getSchema();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(name + ": cannot read its schema", e);
      }
    });
    this.rowGroups = meta.rowGroups;
    int slots = 0;
    for (RowGroup g : rowGroups) {
      slots = Math.max(slots, g.chunks.size());
    }
    this.slotBounds = new long[slots];
    for (RowGroup g : rowGroups) {
      for (int slot = 0; slot < g.chunks.size(); slot++) {
        slotBounds[slot] = Math.max(slotBounds[slot], g.chunks.get(slot).uncompressed);
      }
      for (Chunk c : g.chunks) {
        if (c.start < 4 || c.start + c.length > footerStart) {
          throw new IOException(name + ": column chunk " + String.join(".", c.path)
              + " lies outside the file's data");
        }
      }
    }
  }

  /** Opens {@code file}, reading its footer (or, when small, all of it) with {@code scratch}'s arrays. */
  public static ParquetPages open(InputFile file, DigestScratch scratch) throws IOException {
    SeekableInputStream in = file.newStream();
    ByteBuffer whole = null;
    try {
      // a local file's length from the file it opened: one lookup of its path, not two
      long length = in instanceof LocalParquetFile.Stream local ? local.length() : file.getLength();
      if (length < 12) {
        throw new IOException(file + " is not a Parquet file: " + length + " bytes");
      }
      if (length <= scratch.wholeFileBytes()) {
        whole = chunkBuffers(scratch).allocate((int) length);
        read(in, 0, whole);
      }
      return new ParquetPages(file.toString(), in, length, scratch, whole);
    } catch (IOException | RuntimeException e) {
      if (whole != null) {
        chunkBuffers(scratch).release(whole);
      }
      in.close();
      throw e;
    }
  }

  private static ChunkBuffers chunkBuffers(DigestScratch scratch) {
    return (ChunkBuffers) scratch.pages().chunkBuffers();
  }

  /** The file's schema, as parquet-java converts it. */
  public MessageType schema() {
    return schema;
  }

  /**
   * As {@link #nextRowGroup()}, of only the row groups whose index leaves {@code part} when divided
   * by {@code parts}: a file's digest split over threads reads each row group in one of them.
   */
  public PageReadStore nextRowGroup(int part, int parts) throws IOException {
    while (next < rowGroups.size() && next % parts != part) {
      next++;
    }
    return nextRowGroup();
  }

  /** The next row group's pages, read in one call; null after the last. Close each when done. */
  public PageReadStore nextRowGroup() throws IOException {
    if (next >= rowGroups.size()) {
      return null;
    }
    RowGroup g = rowGroups.get(next++);
    if (g.chunks.isEmpty()) {
      return new Pages(g, null, 0);
    }
    if (whole != null) {
      return new Pages(g, whole, 0);
    }
    long from = Long.MAX_VALUE;
    long to = 0;
    for (Chunk c : g.chunks) {
      from = Math.min(from, c.start);
      to = Math.max(to, c.start + c.length);
    }
    if (to - from > Integer.MAX_VALUE - 16) {
      throw new PageHashes.Unreadable(name + " has a row group of " + (to - from) + " bytes");
    }
    ByteBuffer span = buffers.allocate((int) (to - from));
    try {
      read(in, from, span);
    } catch (IOException | RuntimeException e) {
      buffers.release(span);
      throw e;
    }
    return new Pages(g, span, span, -from);
  }

  private static void read(SeekableInputStream in, long at, ByteBuffer into) throws IOException {
    in.seek(at);
    in.readFully(into);
    into.flip();
  }

  @Override
  public void close() throws IOException {
    if (whole != null) {
      buffers.release(whole);
      whole = null;
    }
    in.close();
  }

  private static Encoding[] encodings() {
    Encoding[] byValue = new Encoding[16];
    for (org.apache.parquet.format.Encoding e : org.apache.parquet.format.Encoding.values()) {
      if (e.getValue() < byValue.length) {
        try {
          byValue[e.getValue()] = Encoding.valueOf(e.name());
        } catch (IllegalArgumentException unknown) {
          // an encoding parquet-java's reader does not know either: left null, and refused when met
        }
      }
    }
    return byValue;
  }

  private Encoding encoding(int value) {
    Encoding e = value >= 0 && value < ENCODINGS.length ? ENCODINGS[value] : null;
    if (e == null) {
      throw new PageHashes.Unreadable(name + " has pages of encoding " + value);
    }
    return e;
  }

  /** One row group's pages, over the bytes its chunks were read into. */
  private final class Pages implements PageReadStore {
    private final RowGroup group;
    /** The buffer read for this row group alone, handed back on close; null when it is the whole file's. */
    private ByteBuffer span;

    private final ByteBuffer bytes;
    /** Where file offset 0 would be in {@link #bytes}. */
    private final long base;

    Pages(RowGroup group, ByteBuffer bytes, long base) {
      this(group, null, bytes, base);
    }

    Pages(RowGroup group, ByteBuffer span, ByteBuffer bytes, long base) {
      this.group = group;
      this.span = span;
      this.bytes = bytes;
      this.base = base;
    }

    @Override
    public PageReader getPageReader(ColumnDescriptor descriptor) {
      for (int slot = 0; slot < group.chunks.size(); slot++) {
        Chunk c = group.chunks.get(slot);
        if (Arrays.equals(c.path, descriptor.getPath())) {
          int at = (int) (base + c.start);
          return new ChunkPages(c, slot, bytes, at, at + (int) c.length);
        }
      }
      throw new IllegalStateException(name + " has no column chunk " + descriptor);
    }

    @Override
    public long getRowCount() {
      return group.rows;
    }

    @Override
    public void close() {
      if (span != null) {
        buffers.release(span);
        span = null;
      }
    }
  }

  /** One column chunk's pages in order: a dictionary page first, if any, then its data pages. */
  private final class ChunkPages implements PageReader {
    private final Chunk chunk;
    /** The chunk's place in its row group: its pages' own decompression array ({@link PageDecompression}). */
    private final int slot;

    private final ByteBuffer bytes;
    private int pos;
    private final int end;
    private long valuesRead;
    private PageHeader pending;

    /** The chunk is the bytes from {@code pos} to {@code end} of {@code bytes}. */
    ChunkPages(Chunk chunk, int slot, ByteBuffer bytes, int pos, int end) {
      this.chunk = chunk;
      this.slot = slot;
      this.bytes = bytes;
      this.pos = pos;
      this.end = end;
    }

    @Override
    public DictionaryPage readDictionaryPage() {
      PageHeader h = header();
      if (h == null || h.type != PageHeader.DICTIONARY) {
        pending = h;
        return null;
      }
      BytesInput data = page(pos, h.compressedSize, h.uncompressedSize);
      pos += h.compressedSize;
      return new DictionaryPage(data, h.uncompressedSize, h.numValues, encoding(h.encoding));
    }

    @Override
    public long getTotalValueCount() {
      return chunk.values;
    }

    @Override
    public DataPage readPage() {
      while (true) {
        PageHeader h = pending != null ? pending : header();
        pending = null;
        if (h == null) {
          return null;
        }
        int at = pos;
        pos += h.compressedSize;
        switch (h.type) {
          case PageHeader.DATA_V1 -> {
            valuesRead += h.numValues;
            return new DataPageV1(
                page(at, h.compressedSize, h.uncompressedSize),
                h.numValues,
                h.uncompressedSize,
                null,
                encoding(h.repetitionEncoding),
                encoding(h.definitionEncoding),
                encoding(h.encoding));
          }
          case PageHeader.DATA_V2 -> {
            valuesRead += h.numValues;
            return pageV2(h, at);
          }
          case PageHeader.DICTIONARY ->
            throw new IllegalStateException(name + ": column chunk " + String.join(".", chunk.path)
                + " has a second dictionary page");
          default -> {
            // an index page (or a kind added later) holds no values: parquet-java's reader skips it
            // too
          }
        }
      }
    }

    /**
     * A v2 page: its levels, never compressed, copied to the front of the slot's array, its values
     * decompressed (or, as its header may say, copied) after them.
     */
    private DataPage pageV2(PageHeader h, int at) {
      int levels = h.repetitionLength + h.definitionLength;
      if (h.repetitionLength < 0 || h.definitionLength < 0 || levels > h.compressedSize) {
        throw new IllegalStateException(name + ": a page's levels are longer than the page");
      }
      int stored = h.compressedSize - levels;
      int size = h.compressed ? h.uncompressedSize - levels : stored;
      if (size < 0) {
        throw new IllegalStateException(name + ": a page's levels are longer than the page");
      }
      byte[] out = scratch.pages().slot(slot, levels + size, slotBounds[slot]);
      bytes.get(at, out, 0, levels);
      into(
          h.compressed ? chunk.codec : CompressionCodecName.UNCOMPRESSED,
          at + levels,
          stored,
          out,
          levels,
          size);
      return DataPageV2.uncompressed(
          h.rows,
          h.nulls,
          h.numValues,
          BytesInput.from(out, 0, h.repetitionLength),
          BytesInput.from(out, h.repetitionLength, h.definitionLength),
          encoding(h.encoding),
          BytesInput.from(out, levels, size),
          null);
    }

    /** The next page's header, or null once the chunk's values are all read. */
    private PageHeader header() {
      if (valuesRead >= chunk.values) {
        if (valuesRead > chunk.values) {
          throw new IllegalStateException(name + ": column chunk " + String.join(".", chunk.path)
              + " has more values than its metadata says");
        }
        return null;
      }
      if (pos >= end) {
        throw new IllegalStateException(
            name + ": column chunk " + String.join(".", chunk.path) + " ended before its values");
      }
      // parsed from a copy on the heap of what a header can take: a few dozen bytes, more where a
      // writer put statistics in it, taken again larger when they are not all there
      int take = Math.min(end - pos, HEADER_BYTES);
      while (true) {
        if (headerBytes.length < take) {
          headerBytes = new byte[take];
        }
        bytes.get(pos, headerBytes, 0, take);
        Compact c = new Compact(headerBytes, 0, take);
        PageHeader h;
        try {
          h = PageHeader.read(c, name);
        } catch (Compact.Ended e) {
          if (take == end - pos) {
            throw e;
          }
          take = (int) Math.min(end - pos, take * 4L);
          continue;
        }
        pos += c.pos;
        if (pos + h.compressedSize > end) {
          // parquet-java reads on past a chunk's recorded size for files of writers that recorded
          // it short
          throw new PageHashes.Unreadable(name + ": a page longer than its column chunk");
        }
        return h;
      }
    }

    /** The page of {@code compressed} bytes from {@code at}, uncompressed into the slot's array. */
    private BytesInput page(int at, int compressed, int uncompressed) {
      byte[] out = scratch.pages().slot(slot, uncompressed, slotBounds[slot]);
      into(chunk.codec, at, compressed, out, 0, uncompressed);
      return BytesInput.from(out, 0, uncompressed);
    }

    private void into(
        CompressionCodecName codec, int at, int compressed, byte[] out, int outAt, int size) {
      if (codec == CompressionCodecName.UNCOMPRESSED && compressed != size) {
        throw new IllegalStateException(
            name + ": an uncompressed page of " + compressed + " bytes, " + size + " expected");
      }
      try {
        scratch.pages().decompress(codec, bytes, at, compressed, out, outAt, size);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(name + ": cannot decompress a page", e);
      }
    }
  }

  /** @param uncompressed the chunk's pages uncompressed, headers included (0 where a writer left it out) */
  private record Chunk(
      String[] path,
      CompressionCodecName codec,
      long values,
      long start,
      long length,
      long uncompressed) {}

  private record RowGroup(long rows, List<Chunk> chunks) {}

  /** The footer fields a digest reads; the schema kept as the byte ranges it was read from. */
  private static final class FileMetaData {
    int schemaFrom = -1;
    int schemaTo = -1;
    int ordersFrom = -1;
    int ordersTo = -1;
    final List<RowGroup> rowGroups = new ArrayList<>();

    /** The schema's bytes (and the column orders', which parquet-java's conversion reads too). */
    byte[] schemaKey(byte[] footer) {
      if (schemaFrom < 0) {
        throw new IllegalStateException("a footer without a schema");
      }
      int a = schemaTo - schemaFrom;
      int b = ordersFrom < 0 ? 0 : ordersTo - ordersFrom;
      byte[] key = new byte[a + b];
      System.arraycopy(footer, schemaFrom, key, 0, a);
      if (b > 0) {
        System.arraycopy(footer, ordersFrom, key, a, b);
      }
      return key;
    }

    static FileMetaData read(Compact c, String name) {
      FileMetaData m = new FileMetaData();
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 2 -> {
            m.schemaFrom = c.pos;
            c.skip(type);
            m.schemaTo = c.pos;
          }
          case 4 -> {
            int n = c.listSize(type, Compact.STRUCT);
            for (int i = 0; i < n; i++) {
              m.rowGroups.add(rowGroup(c, name));
            }
          }
          case 7 -> {
            m.ordersFrom = c.pos;
            c.skip(type);
            m.ordersTo = c.pos;
          }
          case 8, 9 -> throw new PageHashes.Unreadable(name + " is encrypted");
          default -> c.skip(type);
        }
      }
      return m;
    }

    private static RowGroup rowGroup(Compact c, String name) {
      List<Chunk> chunks = new ArrayList<>();
      long rows = -1;
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> {
            int n = c.listSize(type, Compact.STRUCT);
            for (int i = 0; i < n; i++) {
              chunks.add(chunk(c, name));
            }
          }
          case 3 -> rows = c.i64(type);
          default -> c.skip(type);
        }
      }
      if (rows < 0) {
        throw new IllegalStateException(name + ": a row group without a row count");
      }
      return new RowGroup(rows, List.copyOf(chunks));
    }

    private static Chunk chunk(Compact c, String name) {
      Chunk chunk = null;
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> throw new PageHashes.Unreadable(name + " has a column chunk in another file");
          case 3 -> chunk = columnMetaData(c, type, name);
          case 8, 9 -> throw new PageHashes.Unreadable(name + " has encrypted columns");
          default -> c.skip(type);
        }
      }
      if (chunk == null) {
        throw new PageHashes.Unreadable(name + " has a column chunk without metadata");
      }
      return chunk;
    }

    private static Chunk columnMetaData(Compact c, int structType, String name) {
      if (structType != Compact.STRUCT) {
        throw new IllegalStateException(name + ": column metadata is not a struct");
      }
      String[] path = null;
      int codec = -1;
      long values = -1;
      long compressed = -1;
      long uncompressed = 0;
      long dataPage = -1;
      long dictionaryPage = -1;
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 3 -> {
            int n = c.listSize(type, Compact.BINARY);
            path = new String[n];
            for (int i = 0; i < n; i++) {
              int len = c.varint32();
              c.need(len);
              path[i] = new String(c.b, c.pos, len, StandardCharsets.UTF_8);
              c.pos += len;
            }
          }
          case 4 -> codec = (int) c.i64(type);
          case 5 -> values = c.i64(type);
          case 6 -> uncompressed = c.i64(type);
          case 7 -> compressed = c.i64(type);
          case 9 -> dataPage = c.i64(type);
          case 11 -> dictionaryPage = c.i64(type);
          default -> c.skip(type);
        }
      }
      if (path == null || codec < 0 || values < 0 || compressed < 0 || dataPage < 0) {
        throw new IllegalStateException(
            name + ": column metadata without its path, codec, value count, size or first page");
      }
      org.apache.parquet.format.CompressionCodec formatCodec =
          org.apache.parquet.format.CompressionCodec.findByValue(codec);
      if (formatCodec == null) {
        throw new PageHashes.Unreadable(name + " has pages of codec " + codec);
      }
      // as parquet-java's ColumnChunkMetaData.getStartingPos: writers that had no dictionary wrote
      // 0
      long start = dictionaryPage > 0 && dictionaryPage < dataPage ? dictionaryPage : dataPage;
      return new Chunk(
          path,
          CompressionCodecName.fromParquet(formatCodec),
          values,
          start,
          compressed,
          Math.max(0, uncompressed));
    }
  }

  /** The page header fields a digest reads. */
  private static final class PageHeader {
    static final int DATA_V1 = 0;
    static final int DICTIONARY = 2;
    static final int DATA_V2 = 3;

    int type = -1;
    int uncompressedSize = -1;
    int compressedSize = -1;
    int numValues = -1;
    int encoding = -1;
    int definitionEncoding = -1;
    int repetitionEncoding = -1;
    int nulls;
    int rows;
    int definitionLength;
    int repetitionLength;
    boolean compressed = true;

    static PageHeader read(Compact c, String name) {
      PageHeader p = new PageHeader();
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> p.type = c.i32(type);
          case 2 -> p.uncompressedSize = c.i32(type);
          case 3 -> p.compressedSize = c.i32(type);
          case 5 -> p.dataPage(c, type);
          case 7 -> p.dictionaryPage(c, type);
          case 8 -> p.dataPageV2(c, type);
          default -> c.skip(type);
        }
      }
      boolean complete = switch (p.type) {
        case DATA_V1 ->
          p.numValues >= 0
              && p.encoding >= 0
              && p.definitionEncoding >= 0
              && p.repetitionEncoding >= 0;
        case DICTIONARY, DATA_V2 -> p.numValues >= 0 && p.encoding >= 0;
        default -> p.type >= 0;
      };
      if (!complete || p.compressedSize < 0 || p.uncompressedSize < 0) {
        throw new IllegalStateException(
            name + ": a page header without its sizes, kind, values or encodings");
      }
      return p;
    }

    private void dataPage(Compact c, int structType) {
      c.expect(structType, Compact.STRUCT);
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> numValues = c.i32(type);
          case 2 -> encoding = c.i32(type);
          case 3 -> definitionEncoding = c.i32(type);
          case 4 -> repetitionEncoding = c.i32(type);
          default -> c.skip(type);
        }
      }
    }

    private void dictionaryPage(Compact c, int structType) {
      c.expect(structType, Compact.STRUCT);
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> numValues = c.i32(type);
          case 2 -> encoding = c.i32(type);
          default -> c.skip(type);
        }
      }
    }

    private void dataPageV2(Compact c, int structType) {
      c.expect(structType, Compact.STRUCT);
      for (int f = c.firstField(); f != 0; f = c.nextField(f)) {
        int type = f & 0x0f;
        switch (f >> 4) {
          case 1 -> numValues = c.i32(type);
          case 2 -> nulls = c.i32(type);
          case 3 -> rows = c.i32(type);
          case 4 -> encoding = c.i32(type);
          case 5 -> definitionLength = c.i32(type);
          case 6 -> repetitionLength = c.i32(type);
          case 7 -> compressed = c.bool(type);
          default -> c.skip(type);
        }
      }
    }
  }

  /**
   * Thrift's compact protocol, read in place: field headers, zigzag varints, and a skip for every
   * type, so fields a digest does not read (statistics, key-value metadata, indexes) cost a walk.
   */
  static final class Compact {
    static final int STOP = 0;
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int BYTE = 3;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int DOUBLE = 7;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int SET = 10;
    static final int MAP = 11;
    static final int STRUCT = 12;
    static final int UUID = 13;
    /** Deeper than any Parquet structure: a corrupt footer cannot recurse without end. */
    private static final int MAX_DEPTH = 64;

    final byte[] b;
    int pos;
    final int end;

    Compact(byte[] b, int pos, int end) {
      this.b = b;
      this.pos = pos;
      this.end = end;
    }

    void need(long n) {
      if (n < 0 || pos + n > end) {
        throw new Ended();
      }
    }

    /** The bytes ended inside a value. */
    static final class Ended extends IllegalStateException {
      Ended() {
        super("Thrift bytes end inside a value");
      }
    }

    int u8() {
      need(1);
      return b[pos++] & 0xff;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int x = u8();
        v |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new IllegalStateException("a Thrift varint of more than ten bytes");
    }

    int varint32() {
      long v = varint();
      if (v < 0 || v > Integer.MAX_VALUE) {
        throw new IllegalStateException("a Thrift length of " + v);
      }
      return (int) v;
    }

    long zigzag() {
      long v = varint();
      return (v >>> 1) ^ -(v & 1);
    }

    /** A struct's first field: its id {@code << 4 |} its type; 0 for an empty struct. */
    int firstField() {
      return nextField(0);
    }

    /** The field after {@code field} (as {@link #firstField} gives it); 0 at the struct's end. */
    int nextField(int field) {
      int h = u8();
      int type = h & 0x0f;
      if (type == STOP) {
        return 0;
      }
      int delta = h >>> 4;
      int id = delta != 0 ? (field >> 4) + delta : (short) zigzag();
      return id << 4 | type;
    }

    void expect(int type, int wanted) {
      if (type != wanted) {
        throw new IllegalStateException(
            "a Thrift field of type " + type + ", " + wanted + " expected");
      }
    }

    int i32(int type) {
      expect(type, I32);
      long v = zigzag();
      if (v != (int) v) {
        throw new IllegalStateException("a Thrift i32 out of range");
      }
      return (int) v;
    }

    /** An i64 field; an i32 one read as a long too (a codec or an enum). */
    long i64(int type) {
      if (type != I64 && type != I32) {
        expect(type, I64);
      }
      return zigzag();
    }

    boolean bool(int type) {
      if (type != TRUE && type != FALSE) {
        expect(type, TRUE);
      }
      return type == TRUE;
    }

    /** A list's size, its elements of type {@code element}. */
    int listSize(int type, int element) {
      if (type != LIST && type != SET) {
        expect(type, LIST);
      }
      int h = u8();
      int size = h >>> 4;
      if (size == 15) {
        size = varint32();
      }
      int elementType = h & 0x0f;
      // a list of booleans may be written with either boolean type
      if (elementType != element && !(element == TRUE && elementType == FALSE)) {
        expect(elementType, element);
      }
      return size;
    }

    /** Skips a field of {@code type}: a boolean field's value is in its header. */
    void skip(int type) {
      if (type != TRUE && type != FALSE) {
        value(type, 0);
      }
    }

    /** Skips one value of {@code type}: a field's (not a boolean), a list element's or a map entry's. */
    private void value(int type, int depth) {
      if (depth > MAX_DEPTH) {
        throw new IllegalStateException(
            "Thrift structures nested more than " + MAX_DEPTH + " deep");
      }
      switch (type) {
        case TRUE, FALSE, BYTE -> u8();
        case I16, I32, I64 -> varint();
        case DOUBLE -> {
          need(8);
          pos += 8;
        }
        case UUID -> {
          need(16);
          pos += 16;
        }
        case BINARY -> {
          int n = varint32();
          need(n);
          pos += n;
        }
        case LIST, SET -> {
          int h = u8();
          int size = h >>> 4;
          if (size == 15) {
            size = varint32();
          }
          int element = h & 0x0f;
          for (int i = 0; i < size; i++) {
            value(element, depth + 1);
          }
        }
        case MAP -> {
          int size = varint32();
          if (size > 0) {
            int kv = u8();
            for (int i = 0; i < size; i++) {
              value(kv >>> 4, depth + 1);
              value(kv & 0x0f, depth + 1);
            }
          }
        }
        case STRUCT -> {
          for (int f = firstField(); f != 0; f = nextField(f)) {
            int t = f & 0x0f;
            if (t != TRUE && t != FALSE) {
              value(t, depth + 1);
            }
          }
        }
        default -> throw new IllegalStateException("a Thrift value of unknown type " + type);
      }
    }
  }
}
