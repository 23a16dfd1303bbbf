package dev.resurfacer.content;

import java.util.Arrays;

/**
 * The row hashes of a block of rows computed a column at a time: a columnar reader decodes one
 * column of the block into a primitive array and folds it in ({@link #foldLongs}, {@link #fold}…),
 * with no object per value; the result equals folding each row's columns in turn
 * ({@link RowDigest.Builder#column}). Deleted rows are marked before the columns are folded
 * ({@link #delete}) and count neither as rows nor in the column sums. A null is marked in its row's
 * null lane and counted per column ({@link RowDigest}).
 */
public final class RowBlock {
  private final long[] hashes;
  private final boolean[] deleted;
  private final long[] columnSums;
  private final long[] nullLanes;
  private final long[] columnNulls;
  private int size;
  private boolean anyDeleted;
  private boolean anyNull;
  /** A constant column's hashes, and which rows are null (all; or one column's), for {@link ParquetRows}. */
  final long[] constantHashes;

  final boolean[] nulls;
  final boolean[] allNull;

  public RowBlock(int capacity, int columns) {
    this.constantHashes = new long[capacity];
    this.nulls = new boolean[capacity];
    this.allNull = new boolean[capacity];
    Arrays.fill(allNull, true);
    this.hashes = new long[capacity];
    this.deleted = new boolean[capacity];
    this.nullLanes = new long[capacity];
    this.columnSums = new long[columns];
    this.columnNulls = new long[columns];
  }

  public int capacity() {
    return hashes.length;
  }

  public int columns() {
    return columnSums.length;
  }

  /** Starts a block of {@code rows} rows, all live. */
  public void reset(int rows) {
    if (rows > hashes.length) {
      throw new IllegalArgumentException(rows + " rows in a block of " + hashes.length);
    }
    // the flags and null lanes are cleared only after a block that set some: most blocks have none
    if (anyDeleted) {
      Arrays.fill(deleted, 0, size, false);
    }
    if (anyNull) {
      Arrays.fill(nullLanes, 0, size, 0);
    }
    size = rows;
    Arrays.fill(hashes, 0, rows, RowDigest.ROW_SEED);
    Arrays.fill(columnSums, 0);
    Arrays.fill(columnNulls, 0);
    anyDeleted = false;
    anyNull = false;
  }

  public int size() {
    return size;
  }

  public void delete(int row) {
    deleted[row] = true;
    anyDeleted = true;
  }

  public boolean live(int row) {
    return !deleted[row];
  }

  boolean anyDeleted() {
    return anyDeleted;
  }

  /** Whether every row of the block is live and none has a null column: {@link #rowHashes} adds no lane. */
  boolean plainRows() {
    return !anyDeleted && !anyNull;
  }

  /** Each row's sum of column hashes so far, unfinished: {@link #rowHashes} finishes them in place. */
  long[] columnHashSums() {
    return hashes;
  }

  /**
   * Turns the block's column hash sums into its rows' {@link RowDigest#rowHash}es, in place, and
   * returns them: the block is read once more only by {@link RowDigest.Builder#addRows} before its
   * next {@link #reset}. Every row's hash is finished in one loop over the block ({@link
   * ValueHash#finishAll}), then the null lane is mixed in, for the rows that have one.
   */
  long[] rowHashes() {
    RowDigest.rowHashes(hashes, size);
    if (anyNull) {
      for (int r = 0; r < size; r++) {
        if (nullLanes[r] != 0) {
          hashes[r] = ValueHash.mix(hashes[r], nullLanes[r]);
        }
      }
    }
    return hashes;
  }

  void addColumnSums(long[] sums, long[] nulls) {
    for (int i = 0; i < sums.length; i++) {
      sums[i] += columnSums[i];
      nulls[i] += columnNulls[i];
    }
  }

  /** Adds {@code sum} to column {@code index}'s sum: its hashes were added to every row of the block, none deleted. */
  void addColumnSum(int index, long sum) {
    columnSums[index] += sum;
  }

  /** Adds {@code k} column hashes of column {@code index} from {@code from} in {@code columnHashes} to the rows from {@code at}. */
  void foldSegment(int index, long[] columnHashes, int from, int at, int k) {
    long sum = 0;
    if (!anyDeleted) {
      for (int i = 0; i < k; i++) {
        long h = columnHashes[from + i];
        hashes[at + i] += h;
        sum += h;
      }
    } else {
      for (int i = 0; i < k; i++) {
        long h = columnHashes[from + i];
        hashes[at + i] += h;
        sum += deleted[at + i] ? 0 : h;
      }
    }
    columnSums[index] += sum;
  }

  /** Marks the rows {@code nulls} flags as null in column {@code index} (field id {@code fieldId}). */
  void markNulls(int index, int fieldId, boolean[] nulls) {
    long tag = RowDigest.nullTag(fieldId);
    long live = 0;
    boolean any = false;
    for (int r = 0; r < size; r++) {
      if (nulls[r]) {
        nullLanes[r] += tag;
        live += deleted[r] ? 0 : 1;
        any = true;
      }
    }
    anyNull |= any;
    columnNulls[index] += live;
  }

  /**
   * Folds column {@code index} given as one value hash per row.
   *
   * @param nulls which rows are null (their hash {@link ValueHash#ofNull}'s); null when none is
   */
  public void fold(int index, int fieldId, long[] valueHashes, boolean[] nulls) {
    if (nulls != null) {
      markNulls(index, fieldId, nulls);
    }
    long m = RowDigest.multiplier(fieldId);
    long sum = 0;
    for (int r = 0; r < size; r++) {
      long h = valueHashes[r] * m;
      hashes[r] += h;
      if (!deleted[r]) {
        sum += h;
      }
    }
    columnSums[index] += sum;
  }

  /**
   * Folds column {@code index} (field id {@code fieldId}) given as one {@link RowDigest#columnHash}
   * per row, a null's the column hash of {@link ValueHash#ofNull}.
   *
   * @param nulls which rows are null, read only when {@code nullCount} (how many are) is not 0
   */
  public void foldColumnHashes(
      int index, int fieldId, long[] columnHashes, boolean[] nulls, int nullCount) {
    if (nullCount > 0) {
      markNulls(index, fieldId, nulls);
    }
    long sum = 0;
    if (!anyDeleted) {
      for (int r = 0; r < size; r++) {
        long h = columnHashes[r];
        hashes[r] += h;
        sum += h;
      }
      columnSums[index] += sum;
      return;
    }
    for (int r = 0; r < size; r++) {
      long h = columnHashes[r];
      hashes[r] += h;
      if (!deleted[r]) {
        sum += h;
      }
    }
    columnSums[index] += sum;
  }

  /** @param nulls which rows are null (their value ignored); null when none is */
  public void foldLongs(
      int index, int fieldId, ValueHash.Kind kind, long[] values, boolean[] nulls) {
    if (nulls != null) {
      markNulls(index, fieldId, nulls);
    }
    long nullHash = ValueHash.ofNull(kind);
    long m = RowDigest.multiplier(fieldId);
    long sum = 0;
    for (int r = 0; r < size; r++) {
      long v = nulls != null && nulls[r] ? nullHash : ValueHash.ofLong(kind, values[r]);
      long h = v * m;
      hashes[r] += h;
      if (!deleted[r]) {
        sum += h;
      }
    }
    columnSums[index] += sum;
  }

  public void foldDoubles(int index, int fieldId, double[] values, boolean[] nulls) {
    if (nulls != null) {
      markNulls(index, fieldId, nulls);
    }
    long nullHash = ValueHash.ofNull(ValueHash.Kind.DOUBLE);
    long m = RowDigest.multiplier(fieldId);
    long sum = 0;
    for (int r = 0; r < size; r++) {
      long v = nulls != null && nulls[r] ? nullHash : ValueHash.ofDouble(values[r]);
      long h = v * m;
      hashes[r] += h;
      if (!deleted[r]) {
        sum += h;
      }
    }
    columnSums[index] += sum;
  }
}
