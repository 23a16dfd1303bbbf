package dev.resurfacer.iceberg.upgrade;

import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Row ids of rows written before a table moved to format v3. The spec gives them none until the
 * first snapshot after the upgrade: that snapshot's manifest list assigns every data manifest (and
 * by inheritance every data file) a {@code first_row_id}, and until then Iceberg's readers report
 * {@code _row_id} and {@code _last_updated_sequence_number} as null.
 *
 * <p>A rewrite must copy ids that exist, so it must not start from rows that have none: a later
 * commit (its own partial progress, or a concurrent writer) would assign ids to its input files,
 * and its output would then replace those rows with differently numbered ones. {@link #assign}
 * commits the first snapshot first, so every rewrite reads ids it can keep.
 */
public final class RowLineage {
  /** The value of the {@code resurfacer.operation} summary property on the assigning snapshot. */
  public static final String SUMMARY_VALUE = "assign-row-ids";
  /** What a preview of a rewrite says when it would assign the ids first. */
  public static final String PLAN_NOTE =
      "rows written before the upgrade to v3 have no row ids yet: the rewrite first commits a"
          + " snapshot that changes no file and gives them their ids, then keeps those ids";

  private RowLineage() {}

  /** Whether the table is v3 or newer and its current snapshot predates the upgrade (its rows have no ids yet). */
  public static boolean unassigned(Table table) {
    Snapshot current = table.currentSnapshot();
    return formatVersion(table) >= 3 && current != null && current.firstRowId() == null;
  }

  /**
   * Commits a snapshot that changes no file, so that Iceberg core assigns row ids to every existing
   * data file (a {@code replace}, as a manifest rewrite with nothing to rewrite). No-op when ids are
   * assigned already.
   *
   * @return the id of the committed snapshot, or null when nothing was committed
   */
  public static Long assign(Table table, String summaryProperty) {
    table.refresh();
    if (!unassigned(table)) {
      return null;
    }
    table
        .rewriteManifests()
        .rewriteIf(manifest -> false)
        .set(summaryProperty, SUMMARY_VALUE)
        .commit();
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  private static int formatVersion(Table table) {
    return ((HasTableOperations) table).operations().current().formatVersion();
  }
}
