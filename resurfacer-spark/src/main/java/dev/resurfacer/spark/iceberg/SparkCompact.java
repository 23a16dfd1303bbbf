package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionPlan;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.expressions.Expression;

/**
 * Compaction on the cluster: Iceberg's {@code rewrite_data_files} procedure with our option names
 * (they are Spark's), strategy and order. The preview is our own planner's (Iceberg core's bin-pack
 * planner, metadata only), the same planner the procedure runs, so it names the files Spark then
 * rewrites. Spark commits inside the procedure, so the content (row count and a checksum of every
 * row) is checked right after its commit,
 * on the cluster, between the snapshot before and the one it made; a mismatch rolls the table back
 * to the snapshot before (when nothing else committed since) and fails the step.
 */
final class SparkCompact extends SparkIcebergExecutor<Compact> {
  SparkCompact(SparkIceberg spark) {
    super(spark);
  }

  @Override
  public Step execute(Compact op, IcebergTable t, Mode mode) {
    Expression filter = SparkFilters.filter(
        t.table(), op.options().get(Compact.WHERE), op.options().get(Compact.PARTITION));
    Compact rewrite = withoutSelection(op);
    CompactionPlan plan = Compaction.plan(
            t.table(), CompactionOptions.of(rewrite).withFilter(filter))
        .readout();
    String where = SparkFilters.sql(t.table(), filter);
    Map<String, Long> planned = Map.of(
        "groups",
        (long) plan.groups().size(),
        "files_to_rewrite",
        plan.filesToRewrite(),
        "bytes_to_rewrite",
        plan.bytesToRewrite());
    if (plan.groups().isEmpty()) {
      String why = plan.liveDataFiles() == 0
          ? "no live data files"
          : "nothing to compact: "
              + (plan.skippedBecause() == null ? "no group qualifies" : plan.skippedBecause());
      return Step.nothingToDo(why, planned);
    }
    String what = String.format(
            "%d file(s) (%s) in %d group(s)",
            plan.filesToRewrite(),
            ByteSizes.format(plan.bytesToRewrite()),
            plan.groups().size())
        + (where == null ? "" : " where " + where);
    if (mode == Mode.PREVIEW) {
      return previewed("would rewrite " + what, planned);
    }
    SparkTable table = spark.table(t);
    Snapshot before = t.table().currentSnapshot();
    String statement = call(table, rewrite, where);
    Map<String, Object> r = callOne(t, "compact", statement);
    RewriteCounts counts =
        RewriteCounts.of(plan.filesToRewrite(), plan.bytesToRewrite(), r, "data");
    long failed = SparkIceberg.asLong(r.get("failed_data_files_count"));
    Map<String, Long> m = counts.metrics();
    m.put("failed_files", failed);
    m.put("removed_delete_files", SparkIceberg.asLong(r.get("removed_delete_files_count")));
    t.table().refresh();
    Snapshot after = t.table().currentSnapshot();
    boolean moved = after != null && before != null && after.snapshotId() != before.snapshotId();
    if (failed > 0) {
      // with partial progress some groups are committed already: they are checked before we fail
      String committed = moved
          ? "; what it committed was verified: "
              + verify(table, t, before.snapshotId(), after.snapshotId())
          : "";
      throw new IllegalStateException("spark could not rewrite " + failed + " file(s)" + committed
          + "; see the cluster's driver log");
    }
    if (!moved) {
      return Step.nothingToDo("spark rewrote nothing (the preview planned " + what + ")", m);
    }
    String verified = verify(table, t, before.snapshotId(), after.snapshotId());
    return Step.done(counts.rewrote("file(s)") + ", verified: " + verified + counts.drift(), m);
  }

  /** The operation without {@code where}/{@code partition}: they travel as the procedure's {@code where}, not as options. */
  static Compact withoutSelection(Compact op) {
    Map<String, String> options = new LinkedHashMap<>(op.options());
    options.remove(Compact.WHERE);
    options.remove(Compact.PARTITION);
    return new Compact(op.strategy(), op.orderBy(), options);
  }

  /** @param where Spark SQL from {@link SparkFilters#sql}, or null for the whole table */
  static String call(SparkTable table, Compact op, String where) {
    List<String> args = new ArrayList<>();
    args.add(
        "strategy => " + SparkTable.string("binpack".equals(op.strategy()) ? "binpack" : "sort"));
    if ("sort".equals(op.strategy()) && op.orderBy() != null) {
      args.add("sort_order => " + SparkTable.string(op.orderBy()));
    } else if ("zorder".equals(op.strategy())) {
      args.add("sort_order => " + SparkTable.string("zorder(" + op.orderBy() + ")"));
    }
    if (!op.options().isEmpty()) {
      args.add("options => " + SparkTable.map(op.options()));
    }
    if (where != null) {
      args.add("where => " + SparkTable.string(where));
    }
    return table.call("rewrite_data_files", args.toArray(String[]::new));
  }
}
