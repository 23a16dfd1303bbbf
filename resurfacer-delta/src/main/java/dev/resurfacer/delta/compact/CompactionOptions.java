package dev.resurfacer.delta.compact;

import java.util.OptionalLong;

/**
 * @param targetFileSize overrides the table's {@code delta.targetFileSize}
 * @param deletedRowRatio a file whose deletion vector deletes more than this share of its rows is
 *     rewritten even alone (its deleted rows are purged); 0.3 like our Iceberg compaction
 */
public record CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio) {
  public static final double DEFAULT_DELETED_ROW_RATIO = 0.3;

  public static CompactionOptions defaults() {
    return new CompactionOptions(OptionalLong.empty(), DEFAULT_DELETED_ROW_RATIO);
  }
}
