package dev.resurfacer.delta.compact;

import java.util.List;
import java.util.OptionalLong;

/**
 * @param targetFileSize overrides the table's {@code delta.targetFileSize}
 * @param deletedRowRatio a file whose deletion vector deletes more than this share of its rows is
 *     rewritten even alone (its deleted rows are purged); 0.3 like our Iceberg compaction
 * @param zOrderColumns empty to bin-pack; otherwise every file of each matched partition is rewritten
 *     ordered by the z-value of these columns (docs/ordering.md), as Delta's {@code OPTIMIZE ZORDER BY}
 * @param where which partitions to compact (on partition columns only)
 */
public record CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio, List<String> zOrderColumns, PartitionFilter where) {
  public static final double DEFAULT_DELETED_ROW_RATIO = 0.3;

  public CompactionOptions {
    zOrderColumns = List.copyOf(zOrderColumns);
  }

  public CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio) {
    this(targetFileSize, deletedRowRatio, List.of(), PartitionFilter.ALL);
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(OptionalLong.empty(), DEFAULT_DELETED_ROW_RATIO);
  }

  public CompactionOptions zOrder(List<String> columns) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, columns, where);
  }

  public CompactionOptions where(PartitionFilter filter) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, filter);
  }

  public boolean zOrdered() {
    return !zOrderColumns.isEmpty();
  }
}
