package dev.resurfacer.content;

import java.util.Arrays;

/**
 * The row hashes of a block of rows computed a column at a time: a columnar reader decodes one
 * column of the block into a primitive array and folds it in ({@link #foldLongs}, {@link #fold}…),
 * with no object per value; the result equals folding each row's columns in turn
 * ({@link RowDigest.Builder#column}). Deleted rows are marked before the columns are folded
 * ({@link #delete}) and count neither as rows nor in the column sums.
 */
public final class RowBlock {
  private final long[] hashes;
  private final boolean[] deleted;
  private final long[] columnSums;
  private int size;

  public RowBlock(int capacity, int columns) {
    this.hashes = new long[capacity];
    this.deleted = new boolean[capacity];
    this.columnSums = new long[columns];
  }

  public int capacity() {
    return hashes.length;
  }

  /** Starts a block of {@code rows} rows, all live. */
  public void reset(int rows) {
    if (rows > hashes.length) {
      throw new IllegalArgumentException(rows + " rows in a block of " + hashes.length);
    }
    size = rows;
    Arrays.fill(hashes, 0, rows, RowDigest.ROW_SEED);
    Arrays.fill(deleted, 0, rows, false);
    Arrays.fill(columnSums, 0);
  }

  public int size() {
    return size;
  }

  public void delete(int row) {
    deleted[row] = true;
  }

  public boolean live(int row) {
    return !deleted[row];
  }

  long columnHashSum(int row) {
    return hashes[row];
  }

  void addColumnSums(long[] into) {
    for (int i = 0; i < into.length; i++) {
      into[i] += columnSums[i];
    }
  }

  /** Folds column {@code index} given as one value hash per row. */
  public void fold(int index, int fieldId, long[] valueHashes) {
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

  /** Folds column {@code index} given as one {@link RowDigest#columnHash} per row (field id already bound in). */
  public void foldColumnHashes(int index, long[] columnHashes) {
    long sum = 0;
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
  public void foldLongs(int index, int fieldId, ValueHash.Kind kind, long[] values, boolean[] nulls) {
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
