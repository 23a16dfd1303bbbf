package dev.resurfacer.iceberg.compact;

import java.util.List;

/**
 * How rows are ordered in the rewritten files. Ordering is global within a group: the group's
 * output files cover consecutive, non-overlapping ranges of the order.
 *
 * <pre>
 * new Ordering.BinPack()                      // keep rows as they come (fastest)
 * new Ordering.Sort(null)                     // the table's declared sort order, stamped on the files
 * new Ordering.Sort("user_id, ts DESC NULLS LAST, bucket(16, id)")
 * new Ordering.ZOrder(List.of("user_id", "ts"))
 * </pre>
 */
public sealed interface Ordering {
  /** No ordering: the bin-pack strategy. */
  record BinPack() implements Ordering {}

  /**
   * Sort by {@code sortBy} ("col [ASC|DESC] [NULLS FIRST|LAST], ...", terms may be transforms such
   * as {@code day(ts)}, {@code bucket(16, id)}, {@code truncate(4, s)}), or by the table's declared
   * sort order when null. Files are stamped with a sort order id only when the order equals one the
   * table declares.
   */
  record Sort(String sortBy) implements Ordering {}

  /** Z-order over two or more columns; see {@link ZValues} for the exact z-value. */
  record ZOrder(List<String> columns) implements Ordering {
    public ZOrder {
      columns = List.copyOf(columns);
    }
  }
}
