package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.content.ValueHash.Kind;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A byte string hashes the same wherever it sits in an array, and a change to any of its bytes changes the hash. */
class ValueHashTest {
  @Test
  void bytesHashTheSameWhereverTheySitInTheArray() {
    Random random = new Random(28);
    for (int length = 0; length <= 40; length++) {
      byte[] value = new byte[length];
      random.nextBytes(value);
      long alone = ValueHash.ofBytes(Kind.BINARY, value);
      for (int offset : new int[] {0, 1, 7, 8, 13}) {
        for (int after : new int[] {0, 3, 9}) {
          byte[] placed = new byte[offset + length + after];
          random.nextBytes(placed);
          System.arraycopy(value, 0, placed, offset, length);
          assertThat(ValueHash.ofBytes(Kind.BINARY, placed, offset, length))
              .as("%d bytes at %d with %d after", length, offset, after)
              .isEqualTo(alone);
        }
      }
    }
  }

  @Test
  void everyByteAndTheLengthCount() {
    Random random = new Random(7);
    for (int length = 1; length <= 40; length++) {
      byte[] value = new byte[length];
      random.nextBytes(value);
      Set<Long> hashes = new HashSet<>();
      hashes.add(ValueHash.ofBytes(Kind.BINARY, value));
      for (int at = 0; at < length; at++) {
        byte[] changed = value.clone();
        changed[at] ^= 1;
        assertThat(hashes.add(ValueHash.ofBytes(Kind.BINARY, changed)))
            .as("%d bytes, byte %d flipped", length, at)
            .isTrue();
      }
      // a trailing zero byte is a different string
      assertThat(hashes.add(ValueHash.ofBytes(Kind.BINARY, Arrays.copyOf(value, length + 1))))
          .isTrue();
    }
    // the two lanes' words swapped
    byte[] words = "aaaaaaaabbbbbbbb".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] swapped = "bbbbbbbbaaaaaaaa".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(ValueHash.ofBytes(Kind.STRING, words))
        .isNotEqualTo(ValueHash.ofBytes(Kind.STRING, swapped));
  }

  @Test
  void aColumnHashedAtOnceEqualsEachValueHashedAlone() {
    Random random = new Random(2812);
    long m = RowDigest.multiplier(9);
    for (int n : new int[] {0, 1, 7, 8, 9, 63, 4096}) {
      long[] values = new long[n + 3];
      for (int i = 0; i < values.length; i++) {
        values[i] = random.nextInt(4) == 0 ? random.nextInt(5) - 2 : random.nextLong();
      }
      for (Kind kind : Kind.values()) {
        long[] hashed = values.clone();
        ValueHash.mixAll(ValueHash.seed(kind), hashed, n, m);
        for (int i = 0; i < n; i++) {
          assertThat(hashed[i])
              .as("%s of %d", kind, values[i])
              .isEqualTo(m * ValueHash.ofLong(kind, values[i]));
        }
        assertThat(Arrays.copyOfRange(hashed, n, n + 3))
            .as("past the first %d", n)
            .containsExactly(Arrays.copyOfRange(values, n, n + 3));
        // the same values stored as a page's plain longs, after 5 bytes of something else
        java.nio.ByteBuffer page =
            java.nio.ByteBuffer.allocate(5 + 8 * n + 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        page.position(5);
        for (int i = 0; i < n; i++) {
          page.putLong(values[i]);
        }
        long[] read = values.clone();
        ValueHash.mixLittleEndian(ValueHash.seed(kind), page.array(), 5, read, n, m);
        assertThat(read).as("%s read from a page's bytes", kind).containsExactly(hashed);
      }
      long[] decimals = values.clone();
      ValueHash.mixAll(ValueHash.decimalSeed(2), decimals, n, m);
      long[] doubles = values.clone();
      ValueHash.mixAll(ValueHash.seed(Kind.DOUBLE), doubles, n, m);
      long[] low = new long[n + 3];
      for (int i = 0; i < low.length; i++) {
        low[i] = random.nextLong();
      }
      long[] uuids = values.clone();
      ValueHash.mixAll(ValueHash.seed(Kind.UUID), uuids, n, 1);
      ValueHash.pairAll(uuids, low, n, m);
      java.nio.ByteBuffer ints =
          java.nio.ByteBuffer.allocate(3 + 4 * n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      java.nio.ByteBuffer stored =
          java.nio.ByteBuffer.allocate(3 + 16 * n); // big-endian, as stored
      ints.position(3);
      stored.position(3);
      for (int i = 0; i < n; i++) {
        ints.putInt((int) values[i]);
        stored.putLong(values[i]).putLong(low[i]);
      }
      long[] fromInts = new long[n];
      ValueHash.mixLittleEndianInts(ValueHash.seed(Kind.INT), ints.array(), 3, fromInts, n, m);
      long[] fromStored = new long[n];
      ValueHash.mixUuids(stored.array(), 3, fromStored, n, m);
      for (int i = 0; i < n; i++) {
        assertThat(fromInts[i]).isEqualTo(m * ValueHash.ofLong(Kind.INT, (int) values[i]));
        assertThat(fromStored[i]).isEqualTo(uuids[i]);
        assertThat(decimals[i]).isEqualTo(m * ValueHash.ofDecimal(2, values[i]));
        assertThat(doubles[i])
            .isEqualTo(m * ValueHash.ofDouble(Double.longBitsToDouble(values[i])));
        assertThat(uuids[i]).isEqualTo(m * ValueHash.ofUuid(values[i], low[i]));
      }
    }
  }

  @Test
  void stringsEndedABlockAtATimeEqualEachStringHashedAlone() {
    Random random = new Random(2813);
    long m = RowDigest.multiplier(4);
    for (int n : new int[] {0, 1, 9, 200}) {
      byte[] page = new byte[64 * n + 8];
      random.nextBytes(page);
      long[] first = new long[n];
      long[] second = new long[n];
      int[] lengths = new int[n];
      int[] offsets = new int[n];
      for (int i = 0, at = 0; i < n; i++) {
        lengths[i] = random.nextInt(4) == 0 ? i % 41 : random.nextInt(60);
        offsets[i] = at;
        at += lengths[i];
      }
      for (Kind kind : new Kind[] {Kind.STRING, Kind.BINARY}) {
        for (int i = 0; i < n; i++) {
          first[i] = ValueHash.lanes(ValueHash.seed(kind), page, offsets[i], lengths[i], second, i);
        }
        ValueHash.finishBytes(first, second, lengths, n, m);
        for (int i = 0; i < n; i++) {
          assertThat(first[i])
              .as("%s of %d bytes at %d", kind, lengths[i], offsets[i])
              .isEqualTo(m * ValueHash.ofBytes(kind, page, offsets[i], lengths[i]));
        }
      }
    }
  }

  /**
   * The loops that add each hash to its row as they make it ({@code fold…}) add what the others
   * ({@code mix…}, {@code finishBytes}) make, to the rows from their offset only, and return the
   * sum of what they added.
   */
  @Test
  void foldingLoopsAddWhatTheMixingLoopsMakeToTheirRowsOnly() {
    Random random = new Random(97);
    long m = RowDigest.multiplier(6);
    int n = 300;
    int at = 7;
    byte[] page = new byte[16 * n + 11];
    random.nextBytes(page);
    long[] before = new long[n + 20];
    for (int i = 0; i < before.length; i++) {
      before[i] = random.nextLong();
    }
    long seed = ValueHash.seed(Kind.LONG);
    long[] longs = new long[n];
    ValueHash.mixLittleEndian(seed, page, 3, longs, n, m);
    long[] rows = before.clone();
    assertFolded(
        before, rows, at, longs, ValueHash.foldLittleEndian(seed, page, 3, rows, at, n, m));
    long[] ints = new long[n];
    ValueHash.mixLittleEndianInts(seed, page, 5, ints, n, m);
    rows = before.clone();
    assertFolded(
        before, rows, at, ints, ValueHash.foldLittleEndianInts(seed, page, 5, rows, at, n, m));
    long[] uuids = new long[n];
    ValueHash.mixUuids(page, 1, uuids, n, m);
    rows = before.clone();
    assertFolded(before, rows, at, uuids, ValueHash.foldUuids(page, 1, rows, at, n, m));

    long[] first = new long[n];
    long[] second = new long[n];
    int[] lengths = new int[n];
    for (int i = 0; i < n; i++) {
      lengths[i] = random.nextInt(40);
      first[i] = ValueHash.lanes(ValueHash.seed(Kind.STRING), page, i, lengths[i], second, i);
    }
    long[] firstAgain = first.clone();
    ValueHash.finishBytes(first, second, lengths, n, m);
    rows = before.clone();
    assertFolded(
        before, rows, at, first, ValueHash.foldBytes(firstAgain, second, lengths, n, m, rows, at));
  }

  private static void assertFolded(long[] before, long[] rows, int at, long[] made, long sum) {
    long expected = 0;
    for (int i = 0; i < rows.length; i++) {
      boolean folded = i >= at && i < at + made.length;
      long h = folded ? made[i - at] : 0;
      assertThat(rows[i]).as("row %d", i).isEqualTo(before[i] + h);
      expected += h;
    }
    assertThat(sum).isEqualTo(expected);
  }
}
