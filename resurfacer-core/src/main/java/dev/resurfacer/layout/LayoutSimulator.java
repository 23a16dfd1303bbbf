package dev.resurfacer.layout;

import dev.resurfacer.zorder.ZKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * Simulates recorded predicates against the per-file min/max ranges a layout would produce. All
 * values are order-preserving 64-bit keys compared unsigned ({@link ZKeys}: what z-order
 * interleaves), so one simulation serves every column type and both formats; a string's key is its
 * first 8 bytes, which keeps every comparison conservative (a file is only ever kept, never wrongly
 * pruned).
 */
public final class LayoutSimulator {
  /** What one more file costs a reader beyond its bytes: Spark's and Iceberg's default open cost (4 MB). */
  public static final long OPEN_COST_BYTES = 4L << 20;

  private LayoutSimulator() {}

  /**
   * The sampled rows of one partition, in the order of the files they were read from.
   *
   * @param bytes the partition's data bytes (all its files, not only those sampled)
   * @param rows {@code rows[i][c]}: the key of sample column c in row i
   */
  public record PartitionSample(String partition, long bytes, long[][] rows) {}

  /** @param columns the columns the keys are of, in key order */
  public record Sample(List<String> columns, List<PartitionSample> partitions) {
    public Sample {
      columns = List.copyOf(columns);
      partitions = List.copyOf(partitions);
    }

    public int rows() {
      return partitions.stream().mapToInt(p -> p.rows().length).sum();
    }

    long[] row(int index) {
      int i = index;
      for (PartitionSample p : partitions) {
        if (i < p.rows().length) {
          return p.rows()[i];
        }
        i -= p.rows().length;
      }
      throw new IndexOutOfBoundsException(index);
    }
  }

  /** One file's key range per sample column (unsigned); {@code min > max} for a column without values. */
  public record FileRanges(long[] min, long[] max, long bytes) {}

  /** Maps a filter literal of a column onto the column's key; empty when it cannot (an unparsable or foreign value). */
  @FunctionalInterface
  public interface Keys {
    OptionalLong of(String column, Object literal);
  }

  /** Files read per query and bytes read per query, over the simulated queries. */
  public record Outcome(double filesPerQuery, double bytesPerQuery, long files) {
    /** Bytes read plus the open cost of every file read: what a layout is ranked by. */
    public double cost() {
      return bytesPerQuery + filesPerQuery * OPEN_COST_BYTES;
    }
  }

  /** A compiled predicate over one file's ranges: may the file hold a matching row? */
  sealed interface Prune {
    boolean mayMatch(long[] min, long[] max);
  }

  private record Always(boolean value) implements Prune {
    public boolean mayMatch(long[] min, long[] max) {
      return value;
    }
  }

  private record All(Prune left, Prune right) implements Prune {
    public boolean mayMatch(long[] min, long[] max) {
      return left.mayMatch(min, max) && right.mayMatch(min, max);
    }
  }

  private record Any(Prune left, Prune right) implements Prune {
    public boolean mayMatch(long[] min, long[] max) {
      return left.mayMatch(min, max) || right.mayMatch(min, max);
    }
  }

  /** {@code lo <= value <= hi} in key space (both inclusive: conservative for strict bounds and truncated strings). */
  private record Within(int column, long lo, long hi) implements Prune {
    public boolean mayMatch(long[] min, long[] max) {
      return Long.compareUnsigned(min[column], max[column]) <= 0
          && Long.compareUnsigned(max[column], lo) >= 0
          && Long.compareUnsigned(min[column], hi) <= 0;
    }
  }

  private record OneOf(int column, long[] keys) implements Prune {
    public boolean mayMatch(long[] min, long[] max) {
      for (long k : keys) {
        if (Long.compareUnsigned(min[column], k) <= 0
            && Long.compareUnsigned(max[column], k) >= 0) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * Compiles the scans' filters over the sample's columns. A literal Iceberg sanitized is drawn from
   * the sampled rows for equality and IN (a deterministic pick per scan, so every layout meets the same
   * values); a sanitized range bound, or a column outside the sample, prunes nothing.
   */
  static List<Prune> compile(List<RecordedScan> scans, Sample sample, Keys keys) {
    List<Prune> out = new ArrayList<>(scans.size());
    for (int i = 0; i < scans.size(); i++) {
      out.add(compile(scans.get(i).filter(), sample, keys, new int[] {i * 31 + 7}));
    }
    return out;
  }

  private static Prune compile(ScanFilter f, Sample sample, Keys keys, int[] draw) {
    if (f instanceof ScanFilter.None) {
      return new Always(false);
    }
    if (f instanceof ScanFilter.And a) {
      return new All(compile(a.left(), sample, keys, draw), compile(a.right(), sample, keys, draw));
    }
    if (f instanceof ScanFilter.Or o) {
      return new Any(compile(o.left(), sample, keys, draw), compile(o.right(), sample, keys, draw));
    }
    if (f instanceof ScanFilter.Compare c) {
      int col = sample.columns().indexOf(c.column());
      if (col < 0) {
        return new Always(true);
      }
      OptionalLong k = c.value() == null ? OptionalLong.empty() : keys.of(c.column(), c.value());
      if (k.isEmpty()) {
        return c.op() == ScanFilter.Op.EQ && c.value() == null
            ? drawn(sample, col, draw)
            : new Always(true);
      }
      long key = k.getAsLong();
      return switch (c.op()) {
        case EQ -> new Within(col, key, key);
        case LT, LT_EQ -> new Within(col, 0L, key);
        case GT, GT_EQ -> new Within(col, key, -1L);
      };
    }
    if (f instanceof ScanFilter.In in) {
      int col = sample.columns().indexOf(in.column());
      if (col < 0) {
        return new Always(true);
      }
      long[] ks = new long[in.values().size()];
      for (int j = 0; j < ks.length; j++) {
        Object v = in.values().get(j);
        OptionalLong k = v == null ? OptionalLong.empty() : keys.of(in.column(), v);
        if (k.isEmpty()) {
          if (v != null || sample.rows() == 0) {
            return new Always(true);
          }
          ks[j] = drawnKey(sample, col, draw);
        } else {
          ks[j] = k.getAsLong();
        }
      }
      return new OneOf(col, ks);
    }
    return new Always(true);
  }

  private static Prune drawn(Sample sample, int col, int[] draw) {
    if (sample.rows() == 0) {
      return new Always(true);
    }
    long k = drawnKey(sample, col, draw);
    return new Within(col, k, k);
  }

  private static long drawnKey(Sample sample, int col, int[] draw) {
    int rows = sample.rows();
    if (rows == 0) {
      return 0L;
    }
    // a fixed hash of the scan's index: the same value for every layout simulated
    long h = (draw[0]++) * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    return sample.row((int) Math.floorMod(h, (long) rows))[col];
  }

  /** The files {@code layout} would write at {@code targetFileSize}, partition by partition. */
  static List<FileRanges> files(Sample sample, Layout layout, long targetFileSize) {
    List<FileRanges> out = new ArrayList<>();
    int width = sample.columns().size();
    for (PartitionSample p : sample.partitions()) {
      long[][] rows = ordered(p.rows(), layout, sample.columns());
      int n = (int) Math.max(
          1, Math.min(Math.max(1, rows.length), (p.bytes() + targetFileSize - 1) / targetFileSize));
      long bytes = p.bytes() / n;
      for (int f = 0; f < n; f++) {
        int from = (int) ((long) f * rows.length / n);
        int to = (int) ((long) (f + 1) * rows.length / n);
        out.add(ranges(rows, from, to, width, bytes));
      }
    }
    return out;
  }

  static FileRanges ranges(long[][] rows, int from, int to, int width, long bytes) {
    long[] min = new long[width];
    long[] max = new long[width];
    Arrays.fill(min, -1L);
    Arrays.fill(max, 0L);
    for (int r = from; r < to; r++) {
      for (int c = 0; c < width; c++) {
        long v = rows[r][c];
        if (Long.compareUnsigned(v, min[c]) < 0) {
          min[c] = v;
        }
        if (Long.compareUnsigned(v, max[c]) > 0) {
          max[c] = v;
        }
      }
    }
    return new FileRanges(min, max, bytes);
  }

  private static long[][] ordered(long[][] rows, Layout layout, List<String> columns) {
    if (layout instanceof Layout.Sort s) {
      int[] cols = s.columns().stream().mapToInt(columns::indexOf).toArray();
      long[][] copy = rows.clone();
      Arrays.sort(copy, (x, y) -> {
        for (int c : cols) {
          int cmp = Long.compareUnsigned(x[c], y[c]);
          if (cmp != 0) {
            return cmp;
          }
        }
        return 0;
      });
      return copy;
    }
    if (layout instanceof Layout.ZOrder z) {
      int[] cols = z.columns().stream().mapToInt(columns::indexOf).toArray();
      byte[][] zs = new byte[rows.length][];
      Integer[] idx = new Integer[rows.length];
      for (int r = 0; r < rows.length; r++) {
        long[] k = new long[cols.length];
        for (int i = 0; i < cols.length; i++) {
          k[i] = rows[r][cols[i]];
        }
        zs[r] = ZKeys.interleave(k);
        idx[r] = r;
      }
      Arrays.sort(idx, Comparator.comparing((Integer r) -> zs[r], ZKeys::compare));
      long[][] copy = new long[rows.length][];
      for (int r = 0; r < rows.length; r++) {
        copy[r] = rows[idx[r]];
      }
      return copy;
    }
    return rows;
  }

  static Outcome evaluate(List<FileRanges> files, List<Prune> queries) {
    if (queries.isEmpty()) {
      return new Outcome(0, 0, files.size());
    }
    long read = 0;
    double bytes = 0;
    for (Prune q : queries) {
      for (FileRanges f : files) {
        if (q.mayMatch(f.min(), f.max())) {
          read++;
          bytes += f.bytes();
        }
      }
    }
    return new Outcome((double) read / queries.size(), bytes / queries.size(), files.size());
  }
}
