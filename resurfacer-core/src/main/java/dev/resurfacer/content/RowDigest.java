package dev.resurfacer.content;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * An order-independent digest of a multiset of rows, what content verification compares between a
 * rewrite's live input and its output (docs/safety.md). A row's hash is the mix of the sum of its
 * columns' hashes, each a column's {@link ValueHash} bound to its field id ({@link #columnHash}),
 * so a value moved to another row or column changes it (a sum, not a chain of mixes, so a columnar
 * reader folds a column into a block of rows with one add per value); the digest keeps the row count and the wrapping sum and the xor of the row hashes,
 * so the same rows in any order or file split give the same digest, and a lost, duplicated or
 * altered row changes it. Per column it also keeps the sum of the value hashes, so a mismatch can
 * name the columns that changed, and the count of its nulls. A null is not told apart by its hash
 * (a value's hash is a bijection of the value, so one value of each kind hashes as its null does):
 * a column's null count changes when a null becomes that value or back, and a row's null columns
 * ({@link #nullTag}s summed) are mixed into its hash on their own step, so moving a null between
 * rows changes the rows' hashes. Digests of disjoint parts add up ({@link #plus}), so parts can be
 * read on several threads. Iceberg's and Delta's verification both compute it.
 */
public final class RowDigest {
  /** The seed every row's hash starts from. */
  public static final long ROW_SEED = 0x243f6a8885a308d3L;

  private static final long XOR_SALT = 0x632BE59BD9B4E019L;
  private static final long ROW_SALT = 0x13198a2e03707344L;

  private final long rows;
  private final long sum;
  private final long xor;
  private final long[] columns;
  private final long[] nulls;

  private RowDigest(long rows, long sum, long xor, long[] columns, long[] nulls) {
    this.rows = rows;
    this.sum = sum;
    this.xor = xor;
    this.columns = columns;
    this.nulls = nulls;
  }

  /** No rows of no known columns: the identity of {@link #plus} for digests of any width. */
  public static final RowDigest NONE = new RowDigest(0, 0, 0, new long[0], new long[0]);

  public static RowDigest empty(int columns) {
    return new RowDigest(0, 0, 0, new long[columns], new long[columns]);
  }

  public long rows() {
    return rows;
  }

  /**
   * A value's contribution to its row's hash and to its column's sum: its hash times an odd
   * multiplier of the column's field id. A bijection per column, so a column's sum still tells one
   * multiset of values from another; distinct per column, so two values swapped between columns of a
   * row change the row's sum. A multiply, not a second mix: the value's hash is already mixed, and
   * this runs once per value read.
   */
  public static long columnHash(int fieldId, long valueHash) {
    return valueHash * multiplier(fieldId);
  }

  /** The odd multiplier of a field id's {@link #columnHash}es: hoisted out of a column's loop by a columnar reader. */
  public static long multiplier(int fieldId) {
    return ValueHash.mix(fieldId, 0x3c6ef372fe94f82bL) | 1;
  }

  /** What a null in the column of {@code fieldId} adds to its row's null lane: hoisted out of a column's loop. */
  public static long nullTag(int fieldId) {
    return ValueHash.mix(fieldId, 0xa54ff53a5f1d36f1L) | 1;
  }

  /**
   * The hash a row adds to the digest, from the sum of its {@link #columnHash}es (and {@link #ROW_SEED})
   * and the sum of its null columns' {@link #nullTag}s (0 for none): the lane is mixed in after the
   * values, so no change of values makes up for a null moved.
   */
  static long rowHash(long columnHashSum, long nullLane) {
    long h = ValueHash.finish(columnHashSum, ROW_SALT);
    return nullLane == 0 ? h : ValueHash.mix(h, nullLane);
  }

  /** {@link #rowHash} of the first {@code n} column hash sums with no null lane, in place. */
  static void rowHashes(long[] columnHashSums, int n) {
    ValueHash.finishAll(columnHashSums, n, ROW_SALT);
  }

  public RowDigest plus(RowDigest other) {
    if (this == NONE) {
      return other;
    }
    if (other == NONE) {
      return this;
    }
    if (other.columns.length != columns.length) {
      throw new IllegalArgumentException(
          "digests of " + columns.length + " and " + other.columns.length + " columns");
    }
    long[] c = columns.clone();
    long[] n = nulls.clone();
    for (int i = 0; i < c.length; i++) {
      c[i] += other.columns[i];
      n[i] += other.nulls[i];
    }
    return new RowDigest(rows + other.rows, sum + other.sum, xor ^ other.xor, c, n);
  }

  /**
   * How {@code output} differs from this digest (the input's), or empty when they are equal.
   *
   * @param columnNames the digested columns' names, in order
   */
  public Optional<String> differenceFrom(RowDigest output, List<String> columnNames) {
    if (rows != output.rows) {
      return Optional.of(rows + " live input rows, " + output.rows + " written");
    }
    List<String> changed = new ArrayList<>();
    for (int i = 0; i < columns.length && i < output.columns.length; i++) {
      if (columns[i] != output.columns[i] || nulls[i] != output.nulls[i]) {
        changed.add(i < columnNames.size() ? columnNames.get(i) : "#" + i);
      }
    }
    if (!changed.isEmpty()) {
      return Optional.of("values differ in column" + (changed.size() > 1 ? "s " : " ")
          + String.join(", ", changed));
    }
    if (sum != output.sum || xor != output.xor) {
      return Optional.of(
          "every column holds the same values, but they are combined into different rows");
    }
    return Optional.empty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowDigest d
        && rows == d.rows
        && sum == d.sum
        && xor == d.xor
        && Arrays.equals(columns, d.columns)
        && Arrays.equals(nulls, d.nulls);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sum ^ xor);
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%d rows, %016x/%016x", rows, sum, xor);
  }

  /**
   * Accumulates rows, one at a time ({@link #column} or {@link #nullColumn} for each column, then {@link #endRow}) or a
   * block at a time ({@link #addRows}, from hashes folded column by column). Not thread-safe: one
   * per thread, then {@link #plus}.
   */
  public static final class Builder {
    private final long[] columns;
    private final long[] nulls;
    /** Each column's {@link #multiplier} (0 until first met, as a multiplier is odd) and the field id it is of. */
    private final long[] multipliers;

    private final int[] fieldIds;
    private long rows;
    private long sum;
    private long xor;
    private long row = ROW_SEED;
    private long nullLane;

    public Builder(int columns) {
      this.columns = new long[columns];
      this.nulls = new long[columns];
      this.multipliers = new long[columns];
      this.fieldIds = new int[columns];
    }

    /** Adds column {@code index} (field id {@code fieldId}) of the current row. */
    public void column(int index, int fieldId, long valueHash) {
      long m = multipliers[index];
      if (m == 0 || fieldIds[index] != fieldId) {
        m = multiplier(fieldId);
        multipliers[index] = m;
        fieldIds[index] = fieldId;
      }
      long h = valueHash * m;
      columns[index] += h;
      row += h;
    }

    /** Adds column {@code index} (field id {@code fieldId}, of {@code kind}) of the current row, a null. */
    public void nullColumn(int index, int fieldId, ValueHash.Kind kind) {
      column(index, fieldId, ValueHash.ofNull(kind));
      nulls[index]++;
      nullLane += nullTag(fieldId);
    }

    public void endRow() {
      add(rowHash(row, nullLane));
      row = ROW_SEED;
      nullLane = 0;
    }

    /**
     * Adds the live rows of a block whose row hashes were folded column by column ({@link RowBlock});
     * the block's per-column sums are its live rows' only.
     */
    public void addRows(RowBlock block) {
      int n = block.size();
      if (!ValueHash.VECTOR_LOOPS && block.plainRows()) {
        // one scalar pass finishes each row and adds it, where vector code took two
        addAll(block.columnHashSums(), n, true);
      } else {
        long[] hashes = block.rowHashes();
        if (block.anyDeleted()) {
          for (int r = 0; r < n; r++) {
            if (block.live(r)) {
              add(hashes[r]);
            }
          }
        } else {
          addAll(hashes, n, false);
        }
      }
      block.addColumnSums(columns, nulls);
    }

    /** Adds the first {@code n} row hashes, or with {@code finish} the rows' column hash sums, finished. */
    private void addAll(long[] hashes, int n, boolean finish) {
      long s = 0;
      long x = 0;
      for (int r = 0; r < n; r++) {
        long h = finish ? ValueHash.finish(hashes[r], ROW_SALT) : hashes[r];
        s += h;
        x ^= xorTerm(h);
      }
      rows += n;
      sum += s;
      xor ^= x;
    }

    private void add(long rowHash) {
      rows++;
      sum += rowHash;
      xor ^= xorTerm(rowHash);
    }

    /**
     * What a row adds to the xor: the row hash is mixed already, so an odd multiply keeps the xor
     * independent of the sum at a tenth of a mix.
     */
    private static long xorTerm(long rowHash) {
      return Long.rotateLeft(rowHash * XOR_SALT, 29);
    }

    public RowDigest build() {
      return new RowDigest(rows, sum, xor, columns.clone(), nulls.clone());
    }
  }
}
