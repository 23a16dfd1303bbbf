package dev.resurfacer.iceberg.upgrade;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * Moves a table to a newer Iceberg format version with core's own metadata transition
 * ({@link TableMetadata#upgradeToFormatVersion}), committed through the catalog's atomic swap. Data
 * and delete files are untouched: v2 position deletes stay valid on a v3 table until
 * {@code rewrite-position-deletes} turns them into deletion vectors.
 *
 * <pre>
 * FormatUpgrade.Result r = FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
 * </pre>
 */
public final class FormatUpgrade {
  /** The newest format version this build of Iceberg core writes. */
  public static final int NEWEST = 3;

  private FormatUpgrade() {}

  public record Result(
      String table, int fromVersion, int toVersion, boolean committed, List<String> consequences) {
    public boolean changes() {
      return fromVersion != toVersion;
    }
  }

  /**
   * The metadata read and the version it would move to ({@code base}'s own when there is nothing to
   * do), with what the move means for readers and writers.
   */
  public record Plan(
      Table table,
      TableOperations ops,
      TableMetadata base,
      int targetVersion,
      List<String> consequences) {
    /** The plan as a result that committed nothing. */
    public Result preview() {
      return new Result(table.name(), base.formatVersion(), targetVersion, false, consequences);
    }
  }

  /** The upgrade to {@code targetVersion}; the same version plans nothing. Reads metadata; commits nothing. */
  public static Plan plan(Table table, int targetVersion) {
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata base = ops.refresh();
    int current = base.formatVersion();
    if (targetVersion < 2 || targetVersion > NEWEST) {
      throw new UsageException(
          "--format-version must be 2 or " + NEWEST + ", not " + targetVersion);
    }
    if (targetVersion < current) {
      throw new UsageException(table.name() + " is format v" + current
          + "; Iceberg tables cannot be downgraded to v" + targetVersion);
    }
    if (targetVersion == current) {
      return new Plan(table, ops, base, current, List.of());
    }
    List<String> consequences = new ArrayList<>();
    if (current < 2) {
      consequences.add("row-level deletes (position and equality delete files) become possible");
    }
    if (targetVersion >= 3) {
      consequences.add(
          "new position deletes are written as deletion vectors (Puffin), one per data file");
      consequences.add(
          "row lineage starts: new rows get row ids, first row id " + base.nextRowId());
      consequences.add(
          "readers need Iceberg 1.8 or newer (Spark, Trino and others built on older Iceberg cannot read the table)");
      consequences.add(
          "existing position-delete files stay valid; `rewrite-position-deletes` turns them into deletion vectors");
    }
    return new Plan(table, ops, base, targetVersion, List.copyOf(consequences));
  }

  /** Commits the planned upgrade against the metadata the plan read; a plan of nothing commits nothing. */
  public static Result execute(Plan plan) {
    TableMetadata base = plan.base();
    if (plan.targetVersion() == base.formatVersion()) {
      return plan.preview();
    }
    plan.ops().commit(base, base.upgradeToFormatVersion(plan.targetVersion()));
    plan.table().refresh();
    return new Result(
        plan.table().name(), base.formatVersion(), plan.targetVersion(), true, plan.consequences());
  }
}
