package dev.resurfacer.content;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.LongPredicate;
import org.apache.parquet.column.page.PageReadStore;

/**
 * One Parquet file's live rows added to a {@link RowDigest} a block at a time: each column's
 * hashes come from its {@link PageHashes} (or are one constant for every row, a value the format
 * keeps outside the file, as Delta's partition values), rows deleted by position are skipped.
 * What Iceberg's and Delta's columnar digests share; each maps its own columns to the file's.
 */
public final class ParquetRows {
  /** Rows per block: a block's hash arrays stay in the cache. */
  public static final int BLOCK = 4096;

  /** A file's row groups, in order ({@code ParquetFileReader::readNextRowGroup}); null after the last. */
  public interface RowGroups {
    PageReadStore next() throws IOException;
  }

  private ParquetRows() {}

  /**
   * Adds the file's rows.
   *
   * @param columns per digested column, its decoder, or null where {@code constants} gives its column hash
   * @param constants per digested column without a decoder, the {@link RowDigest#columnHash} every row has
   * @param constantNulls per digested column without a decoder, whether its constant is a null, with its field id
   *     in {@code constantFieldIds}; null when no constant is
   * @param deleted the file row positions not to add, or null for none
   * @param block a block of {@link #BLOCK} rows and as many columns, reused across files
   */
  public static void add(
      RowGroups groups,
      PageHashes[] columns,
      long[] constants,
      boolean[] constantNulls,
      int[] constantFieldIds,
      LongPredicate deleted,
      RowDigest.Builder digest,
      RowBlock block)
      throws IOException {
    long[] hashes = block.constantHashes;
    boolean[] nulls = block.nulls;
    boolean[] allNull = block.allNull;
    long rowBase = 0;
    PageReadStore rowGroup;
    while ((rowGroup = groups.next()) != null) {
      // closing hands the row group's chunk buffers back to the reader's allocator (ChunkBuffers)
      try {
        for (PageHashes c : columns) {
          if (c != null) {
            c.startRowGroup(rowGroup);
          }
        }
        long rows = rowGroup.getRowCount();
        for (long done = 0; done < rows; done += BLOCK) {
          int n = (int) Math.min(BLOCK, rows - done);
          block.reset(n);
          if (deleted != null) {
            for (int r = 0; r < n; r++) {
              if (deleted.test(rowBase + done + r)) {
                block.delete(r);
              }
            }
          }
          for (int c = 0; c < columns.length; c++) {
            if (columns[c] != null) {
              if (columns[c].foldInto(block, c, nulls, n) > 0) {
                block.markNulls(c, columns[c].fieldId(), nulls);
              }
            } else {
              Arrays.fill(hashes, 0, n, constants[c]);
              boolean isNull = constantNulls != null && constantNulls[c];
              block.foldColumnHashes(
                  c, isNull ? constantFieldIds[c] : 0, hashes, allNull, isNull ? n : 0);
            }
          }
          digest.addRows(block);
        }
        rowBase += rows;
      } finally {
        rowGroup.close();
      }
    }
  }
}
