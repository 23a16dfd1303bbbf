package dev.resurfacer.content;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.schema.MessageType;

/**
 * What a columnar digest reads with, kept from one digest to the next: the page decompressor (its
 * native zstd context, its output array and its column-chunk arrays), each column's decoding
 * arrays and the row block. These grow to the largest page and row group met; made afresh per
 * digest, a verified compaction of 10M rows allocated about 290 MB of them (most of it arrays over
 * half a heap region, which G1 places in fresh memory), so each digest faulted its pages in again
 * (docs/benchmarks.md). Not thread-safe: one digest at a time uses it ({@link Pool}).
 */
public final class DigestScratch implements AutoCloseable {
  private final PageDecompression pages;
  private final int wholeFileBytes;
  private final List<PageHashes.Buffers> columns = new ArrayList<>();
  private RowBlock block;
  private byte[] schemaBytes;
  private MessageType schema;
  private Object decodersFor;
  private Object decodersOf;
  private PageHashes[] decoders;

  /** @param fallback parquet-java's codecs, for pages of a codec other than zstd and snappy */
  public DigestScratch(Supplier<CompressionCodecFactory> fallback) {
    this(fallback, ParquetPages.WHOLE_FILE);
  }

  /**
   * @param wholeFileBytes files up to this size are read whole ({@link ParquetPages}); larger ones a
   *     row group at a time
   */
  public DigestScratch(Supplier<CompressionCodecFactory> fallback, int wholeFileBytes) {
    this.pages = new PageDecompression(fallback);
    this.wholeFileBytes = wholeFileBytes;
  }

  /** Files up to this size are read whole, larger ones a row group at a time. */
  int wholeFileBytes() {
    return wholeFileBytes;
  }

  /** The page decompressor, also the column-chunk allocator ({@link PageDecompression#chunkBuffers}). */
  public PageDecompression pages() {
    return pages;
  }

  /** The decoding arrays of digested column {@code index}. */
  public PageHashes.Buffers column(int index) {
    while (columns.size() <= index) {
      columns.add(new PageHashes.Buffers());
    }
    return columns.get(index);
  }

  /** A block of {@link ParquetRows#BLOCK} rows of {@code columns} columns. */
  public RowBlock block(int columns) {
    if (block == null || block.columns() != columns) {
      block = new RowBlock(ParquetRows.BLOCK, columns);
    }
    return block;
  }

  /**
   * The schema a footer's schema bytes ({@code key}) convert to: converted by {@code convert} only
   * when they differ from the last file's, as a run's files mostly share one schema.
   */
  MessageType schema(byte[] key, Supplier<MessageType> convert) {
    if (schema == null || !Arrays.equals(key, schemaBytes)) {
      schema = convert.get();
      schemaBytes = key;
    }
    return schema;
  }

  /**
   * The decoders of the columns a digest reads from files of {@code fileSchema}: made by {@code
   * make} only when the file schema or the digested columns ({@code columns}) differ from the last
   * file's, by identity ({@link #schema} keeps one file schema object while the files' schemas are
   * the same), as a compaction's input files are many small files of one schema. Each decoder
   * starts afresh at every row group ({@link PageHashes#startRowGroup}); made per file, they and
   * their lookups were tens of thousands of objects a run, on fresh memory (docs/benchmarks.md).
   */
  public PageHashes[] decoders(
      MessageType fileSchema, Object columns, Supplier<PageHashes[]> make) {
    if (decoders == null || decodersFor != fileSchema || decodersOf != columns) {
      decoders = make.get();
      decodersFor = fileSchema;
      decodersOf = columns;
    }
    return decoders;
  }

  @Override
  public void close() {
    pages.close();
  }

  /**
   * A run's two pools, its inputs' digests apart from its outputs': a rewrite's output pages hold
   * tens of thousands of values where a small input file's hold thousands, so mixed, every scratch
   * would grow to the outputs' size.
   */
  public record Pools(Pool inputs, Pool outputs) implements AutoCloseable {
    public static Pools create(Supplier<CompressionCodecFactory> fallback) {
      return new Pools(new Pool(fallback), new Pool(fallback));
    }

    @Override
    public void close() {
      inputs.close();
      outputs.close();
    }
  }

  /**
   * The scratches of a run's digests, lent to one digest at a time: at most as many exist as
   * digests ran at once. Closing it closes the free ones; one still lent is closed when given back.
   */
  public static final class Pool implements AutoCloseable {
    private final Supplier<CompressionCodecFactory> fallback;
    private final Deque<DigestScratch> free = new ArrayDeque<>();
    private boolean closed;

    public Pool(Supplier<CompressionCodecFactory> fallback) {
      this.fallback = fallback;
    }

    public synchronized DigestScratch borrow() {
      DigestScratch s = free.pollFirst();
      return s != null ? s : new DigestScratch(fallback);
    }

    /** Runs {@code digest} with a lent scratch, given back after. */
    public <T> T with(java.util.function.Function<DigestScratch, T> digest) {
      DigestScratch lent = borrow();
      try {
        return digest.apply(lent);
      } finally {
        giveBack(lent);
      }
    }

    public synchronized void giveBack(DigestScratch scratch) {
      if (closed) {
        scratch.close();
      } else {
        free.addFirst(scratch);
      }
    }

    @Override
    public synchronized void close() {
      closed = true;
      for (DigestScratch s : free) {
        s.close();
      }
      free.clear();
    }
  }
}
