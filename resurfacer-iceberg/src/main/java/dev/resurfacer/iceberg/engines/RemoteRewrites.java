package dev.resurfacer.iceberg.engines;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * What an engine that commits its own rewrites (Spark's procedures, Trino's {@code optimize})
 * leaves us to check afterwards. Each rewrite is compared with its own parent — never with a
 * snapshot read before the job, since a writer may have appended meanwhile — and a bad rewrite is
 * undone only by a compare-and-set through the catalog, so a commit that landed after it is never
 * thrown away.
 */
public final class RemoteRewrites {
  private RemoteRewrites() {}

  /** The rewrite ({@code replace}) snapshots on main committed after {@code before}, oldest first. */
  public static List<Snapshot> since(Table table, long before) {
    table.refresh();
    List<Snapshot> out = new ArrayList<>();
    Snapshot s = table.currentSnapshot();
    while (s != null && s.snapshotId() != before) {
      if (DataOperations.REPLACE.equals(s.operation()) && s.parentId() != null) {
        out.add(s);
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    Collections.reverse(out);
    return out;
  }

  /**
   * Sets main back to the rewrite's parent only if main still points at the rewrite; returns whether
   * it did. Anything committed on top of a bad rewrite stays, and the caller says so.
   */
  public static boolean rollBackIfStillCurrent(Table table, Snapshot rewrite) {
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata base = ops.refresh();
    if (base.currentSnapshot() == null
        || base.currentSnapshot().snapshotId() != rewrite.snapshotId()) {
      return false;
    }
    TableMetadata updated = TableMetadata.buildFrom(base)
        .setBranchSnapshot(rewrite.parentId(), SnapshotRef.MAIN_BRANCH)
        .build();
    try {
      ops.commit(base, updated);
      return true;
    } catch (CommitFailedException e) {
      return false;
    } finally {
      table.refresh();
    }
  }
}
