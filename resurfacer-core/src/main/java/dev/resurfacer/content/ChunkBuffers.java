package dev.resurfacer.content;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The direct buffers {@link ParquetPages} reads files and row groups into, handed back when a row
 * group or file is closed and lent again for the next one. Direct, so a file is read once, by the
 * kernel into them: the JDK reads into a heap array through a temporary direct buffer and copies it
 * over, a tenth of a second of a verified compaction of 10M rows spent in that copy
 * (docs/benchmarks.md). Made anew per chunk, a verified compaction allocated and zeroed every byte
 * it read once more. Holds at most as many buffers as one row group needed at once, and frees them
 * when closed (a dropped buffer at once): their memory is outside the heap, and a collection would
 * free it only when the buffer objects happened to be collected.
 *
 * <p>Not thread-safe: one digest at a time uses it, as {@link PageDecompression}.
 */
final class ChunkBuffers implements ByteBufferAllocator, AutoCloseable {
  private final List<ByteBuffer> free = new ArrayList<>();
  private final Map<ByteBuffer, Boolean> lent = new IdentityHashMap<>();
  private boolean closed;

  @Override
  public ByteBuffer allocate(int size) {
    ByteBuffer best = null;
    int at = -1;
    for (int i = 0; i < free.size(); i++) {
      ByteBuffer a = free.get(i);
      if (a.capacity() >= size && (best == null || a.capacity() < best.capacity())) {
        best = a;
        at = i;
      }
    }
    if (best == null) {
      // every free buffer is too small: the largest goes, so a digest's scratch kept for a whole
      // run holds no more buffers than one row group needed at once
      int largest = -1;
      for (int i = 0; i < free.size(); i++) {
        if (largest < 0 || free.get(i).capacity() > free.get(largest).capacity()) {
          largest = i;
        }
      }
      if (largest >= 0) {
        Freeing.free(free.remove(largest));
      }
      // an eighth more: files and row groups differ by a few percent, and each new largest one
      // otherwise made a new buffer
      best =
          ByteBuffer.allocateDirect((int) Math.min((long) size + size / 8, Integer.MAX_VALUE - 16));
    } else {
      free.remove(at);
    }
    lent.put(best, Boolean.TRUE);
    best.clear().limit(size);
    return best;
  }

  /** Takes back only what it lent, once: any other buffer is left to the collector. */
  @Override
  public void release(ByteBuffer buffer) {
    if (lent.remove(buffer) != null) {
      if (closed) {
        Freeing.free(buffer);
      } else {
        free.add(buffer);
      }
    }
  }

  @Override
  public boolean isDirect() {
    return true;
  }

  /** Frees the free buffers; one still lent is freed when handed back after this. */
  @Override
  public void close() {
    for (ByteBuffer b : free) {
      Freeing.free(b);
    }
    free.clear();
    closed = true;
  }

  /**
   * The one use of a JDK-internal API in this package: {@code sun.misc.Unsafe#invokeCleaner}, the
   * only way before the foreign memory API to free a direct buffer's memory when it is no longer
   * needed rather than when the collector gets to its object. Where it is unavailable a buffer is
   * left to the collector.
   */
  private static final class Freeing {
    private static final sun.misc.Unsafe UNSAFE = unsafe();

    private static sun.misc.Unsafe unsafe() {
      try {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (sun.misc.Unsafe) f.get(null);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    static void free(ByteBuffer buffer) {
      if (UNSAFE != null && buffer.isDirect()) {
        UNSAFE.invokeCleaner(buffer);
      }
    }
  }
}
