package dev.resurfacer.content;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Supplier;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Decompresses the pages a digest reads ({@link ParquetPages}), from the direct buffers its files
 * are read into ({@link #chunkBuffers}): zstd and snappy pages in one call each into an array kept
 * for the page's column (an uncompressed page is copied there), where parquet-java's own codecs open a zstd stream
 * (a native context) per page and copy its bytes into a new array each time: a content-verified
 * run's peak RSS halved without them (docs/benchmarks.md). Other codecs go to {@code fallback},
 * parquet-java's own.
 *
 * <p>A page's bytes are valid until the next page of the same column (its {@code slot}, the chunk's
 * place in its row group) is decompressed: {@link PageHashes} decodes a page a block of rows at a
 * time while the row group's other columns decode theirs, so each column has its own array. Not
 * thread-safe: one digest at a time uses it (a run keeps it in a {@link DigestScratch} across its
 * digests); {@link #close} frees the native context.
 */
public final class PageDecompression implements AutoCloseable {
  private final Supplier<CompressionCodecFactory> fallbackFactory;
  private CompressionCodecFactory fallback;
  private ZstdDecompressCtx zstd;
  /** Per column slot, the array its pages decompress into, grown to its largest page. */
  private byte[][] outs = new byte[0][];
  /** Compressed bytes copied to the heap, for codecs that read only arrays there. */
  private byte[] copy = new byte[0];

  private final ChunkBuffers chunks = new ChunkBuffers();

  /** @param fallback parquet-java's codecs, made on first need (a codec other than zstd, snappy or none) */
  public PageDecompression(Supplier<CompressionCodecFactory> fallback) {
    this.fallbackFactory = fallback;
  }

  /**
   * Where {@link ParquetPages} reads files and row groups into: arrays this digest reuses from one
   * row group and file to the next ({@link ChunkBuffers}).
   */
  public ByteBufferAllocator chunkBuffers() {
    return chunks;
  }

  private CompressionCodecFactory fallback() {
    if (fallback == null) {
      fallback = fallbackFactory.get();
    }
    return fallback;
  }

  /** Frees the fallback's codecs, made again on next need. */
  public void release() {
    if (fallback != null) {
      fallback.release();
      fallback = null;
    }
  }

  @Override
  public void close() {
    release();
    chunks.close();
    if (zstd != null) {
      zstd.close();
      zstd = null;
    }
  }

  /**
   * Column {@code slot}'s array, at least {@code size} bytes long: a page of the slot is read into it,
   * valid until the slot's next page.
   *
   * @param bound the most any page of the slot in this file can hold (its largest chunk
   *     uncompressed), or 0 when unknown: an array is made half again as large as the page that
   *     needs it, but not past this. A rewrite's output has one page a chunk, so its arrays are made
   *     once a file at its largest page, where growing by half again left a third of each unused
   *     and its next larger page made a new one: humongous arrays of megabytes, faulted in fresh
   *     (docs/benchmarks.md).
   */
  byte[] slot(int slot, int size, long bound) {
    if (slot >= outs.length) {
      outs = Arrays.copyOf(outs, slot + 1);
    }
    byte[] out = outs[slot];
    if (out == null || out.length < size) {
      long grown = (out == null ? size : out.length) * 3L / 2;
      if (bound > 0) {
        grown = Math.min(grown, bound);
      }
      out = new byte[(int) Math.max(size, Math.min(grown, Integer.MAX_VALUE - 16))];
      outs[slot] = out;
    }
    return out;
  }

  /**
   * Decompresses the {@code length} bytes of {@code codec} from {@code at} in {@code src} (a direct
   * buffer, {@link ChunkBuffers}) into {@code out} from {@code outAt}: {@code size} bytes, or an
   * error. Zstd reads them where they are; other codecs from a copy on the heap.
   */
  void decompress(
      CompressionCodecName codec,
      ByteBuffer src,
      int at,
      int length,
      byte[] out,
      int outAt,
      int size)
      throws IOException {
    int n;
    switch (codec) {
      case UNCOMPRESSED -> {
        src.get(at, out, outAt, length);
        n = length;
      }
      case ZSTD -> {
        if (zstd == null) {
          zstd = new ZstdDecompressCtx();
        }
        n = zstd.decompressDirectByteBufferToByteArray(out, outAt, size, src, at, length);
      }
      case SNAPPY -> n = Snappy.uncompress(heapCopy(src, at, length), 0, length, out, outAt);
      default -> {
        BytesInput bytes = fallback()
            .getDecompressor(codec)
            .decompress(BytesInput.from(heapCopy(src, at, length), 0, length), size);
        n = (int) bytes.size();
        if (n == size) {
          System.arraycopy(bytes.toByteArray(), 0, out, outAt, size);
        }
      }
    }
    if (n != size) {
      throw new IOException("a " + codec + " page of " + n + " bytes, " + size + " expected");
    }
  }

  /** The {@code length} bytes from {@code at} in {@code src}, copied into an array kept for this. */
  private byte[] heapCopy(ByteBuffer src, int at, int length) {
    if (copy.length < length) {
      copy =
          new byte[Math.max(length, (int) Math.min(copy.length * 3L / 2, Integer.MAX_VALUE - 16))];
    }
    src.get(at, copy, 0, length);
    return copy;
  }
}
