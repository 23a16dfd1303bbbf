package dev.resurfacer.content;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Decompresses the pages a digest reads, for parquet-java's file reader: zstd and snappy pages in
 * one call each into one reused array, where parquet-java's own codecs open a zstd stream (a native
 * context) per page and copy its bytes into a new array each time: a content-verified run's peak
 * RSS halved without them (docs/benchmarks.md). Other codecs (and uncompressed pages) go to {@code fallback}, parquet-java's own.
 *
 * <p>A page's bytes are valid until the next page is decompressed: {@link PageHashes} decodes every
 * page (and dictionary) whole before it reads the next, which is what makes the reuse safe; nothing
 * else may read pages through it. Not thread-safe: one digest at a time uses it (Iceberg's keeps it in a
 * {@link DigestScratch} across a run's digests, Delta's verifier makes one per file); {@link #close}
 * frees the native context. parquet-java's reader calls {@link #release} when it closes a file.
 */
public final class PageDecompression implements CompressionCodecFactory, AutoCloseable {
  private final Supplier<CompressionCodecFactory> fallbackFactory;
  private CompressionCodecFactory fallback;
  private ZstdDecompressCtx zstd;
  private byte[] out = new byte[0];
  private final ChunkBuffers chunks = new ChunkBuffers();
  private final BytesInputDecompressor zstdPages = new OneShot(CompressionCodecName.ZSTD);
  private final BytesInputDecompressor snappyPages = new OneShot(CompressionCodecName.SNAPPY);

  /** @param fallback parquet-java's codecs, made on first need (a codec other than zstd, snappy or none) */
  public PageDecompression(Supplier<CompressionCodecFactory> fallback) {
    this.fallbackFactory = fallback;
  }

  /**
   * Where the file reader reads column chunks (its options' allocator): arrays this digest reuses
   * from one row group and file to the next ({@link ChunkBuffers}).
   */
  public ByteBufferAllocator chunkBuffers() {
    return chunks;
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case ZSTD -> zstdPages;
      case SNAPPY -> snappyPages;
      default -> fallback().getDecompressor(codec);
    };
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("verification only reads");
  }

  private CompressionCodecFactory fallback() {
    if (fallback == null) {
      fallback = fallbackFactory.get();
    }
    return fallback;
  }

  /** Called by the file reader as it closes: only the fallback's codecs are per file. */
  @Override
  public void release() {
    if (fallback != null) {
      fallback.release();
      fallback = null;
    }
  }

  @Override
  public void close() {
    release();
    if (zstd != null) {
      zstd.close();
      zstd = null;
    }
  }

  /** One codec's pages, decompressed in one call each into the shared array. */
  private final class OneShot implements BytesInputDecompressor {
    private final CompressionCodecName codec;

    OneShot(CompressionCodecName codec) {
      this.codec = codec;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      return PageDecompression.this.decompress(codec, bytes, uncompressedSize);
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize) {
      throw new UnsupportedOperationException("direct buffers are not read here");
    }

    @Override
    public void release() {}
  }

  private BytesInput decompress(CompressionCodecName codec, BytesInput bytes, int size)
      throws IOException {
    ByteBuffer in = bytes.toByteBuffer();
    byte[] src;
    int offset;
    int length = in.remaining();
    if (in.hasArray()) {
      src = in.array();
      offset = in.arrayOffset() + in.position();
    } else {
      src = new byte[length];
      in.duplicate().get(src);
      offset = 0;
    }
    if (out.length < size) {
      out = new byte[Math.max(size, out.length + out.length / 2)];
    }
    int n;
    if (codec == CompressionCodecName.ZSTD) {
      if (zstd == null) {
        zstd = new ZstdDecompressCtx();
      }
      n = zstd.decompressByteArray(out, 0, size, src, offset, length);
    } else {
      n = Snappy.uncompress(src, offset, length, out, 0);
    }
    if (n != size) {
      throw new IOException("a " + codec + " page of " + n + " bytes, " + size + " expected");
    }
    return BytesInput.from(out, 0, size);
  }
}
