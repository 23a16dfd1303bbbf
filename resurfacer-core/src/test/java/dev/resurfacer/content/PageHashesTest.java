package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * The page decoder's own bit unpacking against parquet-java's packers, for every width a level or
 * dictionary id has, and its reader of the hybrid encoding read a piece at a time.
 */
class PageHashesTest {
  @Test
  void bitPackedRunsDecodeAsParquetJavasPackersDecodeThem() {
    Random random = new Random(7);
    for (int width = 1; width <= 32; width++) {
      int groups = 1 + random.nextInt(20);
      byte[] packed = new byte[groups * width];
      random.nextBytes(packed);
      // a bit-packed run's header (groups << 1 | 1, one varint byte here), then its groups
      byte[] page = new byte[1 + packed.length + (width % 3 == 0 ? 0 : 16)];
      page[0] = (byte) ((groups << 1) | 1);
      System.arraycopy(packed, 0, page, 1, packed.length);
      int n = groups * 8;
      int[] decoded = new int[n + 8];
      PageHashes.hybrid(page, 0, 1 + packed.length, width, decoded, n);

      BytePacker packer = Packer.LITTLE_ENDIAN.newBytePacker(width);
      int[] expected = new int[n + 8];
      for (int g = 0; g < groups; g++) {
        packer.unpack8Values(packed, g * width, expected, g * 8);
      }
      assertThat(Arrays.copyOf(decoded, n))
          .as("width %d", width)
          .isEqualTo(Arrays.copyOf(expected, n));
    }
  }

  @Test
  void theHybridReaderKeepsItsPlaceAcrossReadsOfAnySize() {
    Random random = new Random(11);
    for (int width : new int[] {0, 1, 3, 8, 13, 32}) {
      // runs of repeats and bit-packed runs, in turn, as parquet-java's encoder writes them
      RunLengthBitPackingHybridEncoder encoder =
          new RunLengthBitPackingHybridEncoder(width, 64, 1 << 16, new HeapByteBufferAllocator());
      int n = 20_000;
      int[] expected = new int[n];
      long mask = width == 32 ? 0xffffffffL : (1L << width) - 1;
      for (int i = 0; i < n; ) {
        int run = 1 + random.nextInt(random.nextBoolean() ? 3 : 300);
        int v = (int) (random.nextLong() & mask);
        boolean repeat = random.nextBoolean();
        for (int k = 0; k < run && i < n; k++, i++) {
          expected[i] = repeat ? v : (int) (random.nextLong() & mask);
        }
      }
      byte[] page;
      try {
        for (int v : expected) {
          encoder.writeInt(v);
        }
        page = encoder.toBytes().toByteArray();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }

      PageHashes.Hybrid reader = new PageHashes.Hybrid();
      reader.reset(page, 0, page.length, width);
      int[] decoded = new int[n];
      int[] piece = new int[400];
      for (int at = 0; at < n; ) {
        int k = Math.min(n - at, 1 + random.nextInt(piece.length));
        int first = expected[at];
        boolean allFirst = true;
        for (int i = at; i < at + k; i++) {
          allFirst &= expected[i] == first;
        }
        if (reader.skipRun(first, k)) {
          assertThat(allFirst)
              .as("width %d: skipped %d values at %d", width, k, at)
              .isTrue();
          Arrays.fill(decoded, at, at + k, first);
        } else {
          reader.read(piece, 0, k);
          System.arraycopy(piece, 0, decoded, at, k);
        }
        at += k;
      }
      assertThat(decoded).as("width %d", width).isEqualTo(expected);
    }
  }
}
