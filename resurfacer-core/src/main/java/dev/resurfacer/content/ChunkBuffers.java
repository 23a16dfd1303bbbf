package dev.resurfacer.content;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The heap arrays parquet-java's file reader reads column chunks into, handed back when a row group
 * is closed ({@link ParquetRows} closes each) and lent again for the next row group or file. The
 * reader's default allocator made a new array per chunk: a verified compaction allocated and zeroed
 * every byte it read once more, and young collections and first touches of fresh heap followed
 * (docs/benchmarks.md). Holds at most as many arrays as one row group needed at once. Not
 * thread-safe: one digest at a time uses it, as {@link PageDecompression}.
 */
final class ChunkBuffers implements ByteBufferAllocator {
  private final List<byte[]> free = new ArrayList<>();
  private final Map<byte[], Boolean> lent = new IdentityHashMap<>();

  @Override
  public ByteBuffer allocate(int size) {
    byte[] best = null;
    int at = -1;
    for (int i = 0; i < free.size(); i++) {
      byte[] a = free.get(i);
      if (a.length >= size && (best == null || a.length < best.length)) {
        best = a;
        at = i;
      }
    }
    if (best == null) {
      // every free array is too small: the largest goes, so a digest's scratch kept for a whole run
      // holds no more arrays than one row group needed at once
      int largest = -1;
      for (int i = 0; i < free.size(); i++) {
        if (largest < 0 || free.get(i).length > free.get(largest).length) {
          largest = i;
        }
      }
      if (largest >= 0) {
        free.remove(largest);
      }
      // an eighth more: files and row groups differ by a few percent, and each new largest one
      // otherwise made (and zeroed) a new array
      best = new byte[(int) Math.min((long) size + size / 8, Integer.MAX_VALUE - 16)];
    } else {
      free.remove(at);
    }
    lent.put(best, Boolean.TRUE);
    return ByteBuffer.wrap(best, 0, size);
  }

  /** Takes back only what it lent, once: any other buffer is left to the collector. */
  @Override
  public void release(ByteBuffer buffer) {
    if (buffer.hasArray() && lent.remove(buffer.array()) != null) {
      free.add(buffer.array());
    }
  }

  @Override
  public boolean isDirect() {
    return false;
  }
}
