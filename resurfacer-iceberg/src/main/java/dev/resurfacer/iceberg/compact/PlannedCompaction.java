package dev.resurfacer.iceberg.compact;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * A compaction planned and not yet run: what {@link Compaction#plan} returns and {@link
 * Compaction#execute} acts on, so the groups a preview shows are the groups that are rewritten.
 * {@link #readout()} is the part a preview renders.
 */
public final class PlannedCompaction {
  private final Table table;
  private final CompactionOptions options;
  private final CompactionPlan readout;
  private final List<RewriteFileGroup> groups;
  private final long startingSnapshotId;
  private final long targetFileSize;
  private final ResolvedOrdering ordering;
  private final Map<RewriteFileGroup, Optional<String>> whyNotDuckDb;

  /** @param whyNotDuckDb per group, why DuckDB cannot rewrite it exactly (empty when it can) */
  PlannedCompaction(
      Table table,
      CompactionOptions options,
      CompactionPlan readout,
      List<RewriteFileGroup> groups,
      long startingSnapshotId,
      long targetFileSize,
      ResolvedOrdering ordering,
      Map<RewriteFileGroup, Optional<String>> whyNotDuckDb) {
    this.table = table;
    this.options = options;
    this.readout = readout;
    this.groups = List.copyOf(groups);
    this.startingSnapshotId = startingSnapshotId;
    this.targetFileSize = targetFileSize;
    this.ordering = ordering;
    this.whyNotDuckDb = whyNotDuckDb;
  }

  /** What the plan would do, as {@code compact} without {@code --yes} shows it. */
  public CompactionPlan readout() {
    return readout;
  }

  public Table table() {
    return table;
  }

  public CompactionOptions options() {
    return options;
  }

  List<RewriteFileGroup> groups() {
    return groups;
  }

  long startingSnapshotId() {
    return startingSnapshotId;
  }

  long targetFileSize() {
    return targetFileSize;
  }

  ResolvedOrdering ordering() {
    return ordering;
  }

  Optional<String> whyNotDuckDb(RewriteFileGroup group) {
    return whyNotDuckDb.get(group);
  }
}
