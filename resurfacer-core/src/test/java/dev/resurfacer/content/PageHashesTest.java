package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.junit.jupiter.api.Test;

/** The page decoder's own bit unpacking against parquet-java's packers, for every width a level or dictionary id has. */
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
}
