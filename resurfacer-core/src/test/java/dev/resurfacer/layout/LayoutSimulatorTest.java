package dev.resurfacer.layout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.zorder.ZKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LayoutSimulatorTest {
  private static final LayoutSimulator.Keys KEYS =
      (c, v) -> v instanceof Long l ? OptionalLong.of(ZKeys.ofLong(l)) : OptionalLong.empty();

  /** One partition of 10,000 rows: column 0 uniform in 0-9,999 (shuffled), column 1 = row number. */
  private static LayoutSimulator.Sample sample() {
    SplittableRandom rnd = new SplittableRandom(3);
    long[][] rows = new long[10_000][];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = new long[] {ZKeys.ofLong(rnd.nextInt(10_000)), ZKeys.ofLong(i)};
    }
    return new LayoutSimulator.Sample(
        List.of("a", "b"), List.of(new LayoutSimulator.PartitionSample("p", 100L << 20, rows)));
  }

  private static RecordedScan scan(ScanFilter f) {
    return new RecordedScan("t", Instant.EPOCH, 1, f, true, List.of(), 0, 0, 0);
  }

  @Test
  void sortingByTheFilteredColumnPrunesToOneFileAndBinPackPrunesNothing() {
    LayoutSimulator.Sample s = sample();
    List<RecordedScan> scans = new ArrayList<>();
    for (long v = 0; v < 10_000; v += 97) {
      scans.add(scan(new ScanFilter.Compare("a", ScanFilter.Op.EQ, v)));
    }
    var queries = LayoutSimulator.compile(scans, s, KEYS);
    // 100 MB at a 10 MB target: 10 files
    var sorted = LayoutSimulator.evaluate(
        LayoutSimulator.files(s, new Layout.Sort(List.of("a")), 10L << 20), queries);
    var binpack = LayoutSimulator.evaluate(
        LayoutSimulator.files(s, new Layout.BinPack(), 10L << 20), queries);
    assertThat(sorted.files()).isEqualTo(10);
    // a value on a boundary between two files may need both, one absent from the sample none
    assertThat(sorted.filesPerQuery()).isBetween(0.9, 1.1);
    assertThat(binpack.filesPerQuery()).isGreaterThan(9.5);
    assertThat(sorted.bytesPerQuery()).isLessThan(binpack.bytesPerQuery() / 9);
  }

  @Test
  void rangesOrUnknownValuesAndUnsampledColumnsPruneConservatively() {
    LayoutSimulator.Sample s = sample();
    List<LayoutSimulator.FileRanges> byB =
        LayoutSimulator.files(s, new Layout.Sort(List.of("b")), 10L << 20);
    // b < 1,000 is the first tenth of the rows: one file of ten
    var range = LayoutSimulator.compile(
        List.of(scan(new ScanFilter.Compare("b", ScanFilter.Op.LT, 999L))), s, KEYS);
    assertThat(LayoutSimulator.evaluate(byB, range).filesPerQuery()).isEqualTo(1.0);
    // a sanitized range bound and a column outside the sample cannot prune
    var unknown = LayoutSimulator.compile(
        List.of(
            scan(new ScanFilter.Compare("b", ScanFilter.Op.LT, null)),
            scan(new ScanFilter.Compare("zzz", ScanFilter.Op.EQ, 3L)),
            scan(new ScanFilter.Opaque("b"))),
        s,
        KEYS);
    assertThat(LayoutSimulator.evaluate(byB, unknown).filesPerQuery()).isEqualTo(10.0);
    // a sanitized equality is drawn from the sample: one value, so one file when sorted by it
    var drawn = LayoutSimulator.compile(
        List.of(scan(new ScanFilter.Compare("b", ScanFilter.Op.EQ, null))), s, KEYS);
    assertThat(LayoutSimulator.evaluate(byB, drawn).filesPerQuery()).isEqualTo(1.0);
    // or: either side; None: nothing
    var or = LayoutSimulator.compile(
        List.of(
            scan(new ScanFilter.Or(
                new ScanFilter.Compare("b", ScanFilter.Op.EQ, 5L),
                new ScanFilter.Compare("b", ScanFilter.Op.EQ, 9_995L))),
            scan(new ScanFilter.None())),
        s,
        KEYS);
    assertThat(LayoutSimulator.evaluate(byB, or).filesPerQuery()).isEqualTo(1.0);
  }

  @Test
  void zOrderOfTwoColumnsServesEitherColumn() {
    SplittableRandom rnd = new SplittableRandom(5);
    long[][] rows = new long[16_384][];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = new long[] {ZKeys.ofLong(rnd.nextInt(1 << 16)), ZKeys.ofLong(rnd.nextInt(1 << 16))};
    }
    var s = new LayoutSimulator.Sample(
        List.of("a", "b"), List.of(new LayoutSimulator.PartitionSample("p", 64L << 20, rows)));
    List<RecordedScan> onB = new ArrayList<>();
    for (long v = 0; v < 1 << 16; v += 1_001) {
      onB.add(scan(new ScanFilter.Compare("b", ScanFilter.Op.EQ, v)));
    }
    var q = LayoutSimulator.compile(onB, s, KEYS);
    // 16 files: sorted by a, a filter on b reads all; z-ordered, a column of a 4 x 4 grid and the
    // files it touches
    var sortedA = LayoutSimulator.evaluate(
        LayoutSimulator.files(s, new Layout.Sort(List.of("a")), 4L << 20), q);
    var z = LayoutSimulator.evaluate(
        LayoutSimulator.files(s, new Layout.ZOrder(List.of("a", "b")), 4L << 20), q);
    assertThat(sortedA.filesPerQuery()).isGreaterThan(15.0);
    assertThat(z.filesPerQuery()).isLessThan(8.0);
  }
}
