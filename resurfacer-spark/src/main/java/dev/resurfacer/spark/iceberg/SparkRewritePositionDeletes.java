package dev.resurfacer.spark.iceberg;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewrite;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.RewritePositionDeletes;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewritePositionDeletePlanner;
import org.apache.iceberg.actions.RewritePositionDeletesGroup;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Position-delete files compacted on the cluster by Iceberg's {@code rewrite_position_delete_files}
 * (format v2; options by the procedure's names). The preview is Iceberg core's bin-pack planner for
 * position deletes on metadata only, the planner the procedure runs, so it names the delete files Spark
 * then rewrites. The table's content (row count and checksum of every row) is compared on the cluster
 * before and after each rewrite Spark committed; a mismatch is undone as compaction's is. A v3 table
 * carries deletion vectors instead, which our local engine converts to: it is refused here.
 */
final class SparkRewritePositionDeletes extends SparkIcebergExecutor<RewritePositionDeletes> {
  SparkRewritePositionDeletes(SparkIceberg spark) {
    super(spark);
  }

  /** What the planner selects: groups, delete files and their bytes. */
  record Plan(long groups, long files, long bytes) {}

  static Plan plan(Table table, Map<String, String> options) {
    BinPackRewritePositionDeletePlanner planner =
        new BinPackRewritePositionDeletePlanner(table, Expressions.alwaysTrue(), true);
    long groups = 0;
    long files = 0;
    long bytes = 0;
    try {
      planner.init(options);
      try (CloseableIterable<RewritePositionDeletesGroup> all = planner.plan().groups()) {
        for (RewritePositionDeletesGroup g : all) {
          groups++;
          files += g.inputFileNum();
          bytes += g.inputFilesSizeInBytes();
        }
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "cannot plan the position-delete rewrite of " + table.name() + ": " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Plan(groups, files, bytes);
  }

  @Override
  public Step execute(RewritePositionDeletes op, IcebergTable t, Mode mode) {
    t.table().refresh();
    if (PositionDeleteRewrite.carriesDeletionVectors(t.table())) {
      throw new UsageException(
          "rewrite-position-deletes on spark: " + t.name()
              + " is format v3, whose position deletes are"
              + " deletion vectors; run it with --engine local, which turns position-delete files into them");
    }
    if (t.table().currentSnapshot() == null) {
      return Step.nothingToDo("the table has no snapshot", Map.of());
    }
    Plan p = plan(t.table(), op.options());
    Map<String, Long> planned =
        Map.of("groups", p.groups(), "files_to_rewrite", p.files(), "bytes_to_rewrite", p.bytes());
    if (p.groups() == 0) {
      return Step.nothingToDo("no position-delete files to rewrite", planned);
    }
    String what = p.files() + " position-delete file(s) (" + ByteSizes.format(p.bytes()) + ") in "
        + p.groups() + " group(s)";
    if (mode == Mode.PREVIEW) {
      return previewed("would rewrite " + what, planned);
    }
    SparkTable table = spark.table(t);
    long before = t.table().currentSnapshot().snapshotId();
    String statement = op.options().isEmpty()
        ? table.call("rewrite_position_delete_files")
        : table.call("rewrite_position_delete_files", "options => " + SparkTable.map(op.options()));
    Map<String, Object> r = callOne(t, "rewrite-position-deletes", statement);
    RewriteCounts counts = RewriteCounts.of(p.files(), p.bytes(), r, "delete");
    Map<String, Long> m = counts.metrics();
    m.put("added_bytes", SparkIceberg.asLong(r.get("added_bytes_count")));
    t.table().refresh();
    long after = t.table().currentSnapshot().snapshotId();
    if (after == before) {
      return Step.nothingToDo(
          "spark rewrote no position-delete file (the preview planned " + what + ")", m);
    }
    String verified = verify(table, t, before, after);
    return Step.done(
        counts.rewrote("position-delete file(s)") + ", verified: " + verified + counts.drift(), m);
  }
}
