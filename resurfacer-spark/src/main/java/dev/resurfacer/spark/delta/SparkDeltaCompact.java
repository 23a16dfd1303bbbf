package dev.resurfacer.spark.delta;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.CompactionPlan;
import dev.resurfacer.delta.compact.CompactionPlanner;
import dev.resurfacer.delta.compact.OptimizeUndo;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.spark.SparkContent;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.units.ByteSizes;
import io.delta.kernel.Snapshot;
import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta compaction as delta-spark's {@code OPTIMIZE} (bin-pack) or {@code OPTIMIZE … ZORDER BY} on
 * the cluster. The preview is our own planner's ({@link CompactionPlanner}, from the log), and the
 * session is given the sizes that make delta-spark's OptimizeExecutor select the same files: its
 * {@code optimize.minFileSize} is our 75% of the target, {@code optimize.maxFileSize} the target and
 * {@code optimize.maxDeletedRowsRatio} our delete-ratio threshold. Where the two rules still differ
 * the run is refused: delta-spark never rewrites a file alone in its bin (our planner does, to purge
 * its deleted rows), it z-orders every file of every partition (our planner leaves a partition of one
 * file alone: the preview here names every file, as delta-spark will), and it clusters
 * liquid-clustered tables by its own selection.
 *
 * <p>delta-spark commits on its own: afterwards each {@code OPTIMIZE} version must hold the same row
 * count and checksum of every row as its parent, measured on the cluster; a mismatch is undone in
 * our process by a Delta Kernel commit made only on that version ({@link OptimizeUndo}: the parent's
 * files back; refused when anything committed on top; failing, not rebasing, when a commit lands
 * meanwhile — delta-spark's {@code RESTORE} is no compare-and-set), and fails the step. The files it
 * removed are compared with the preview's and any difference is reported.
 */
final class SparkDeltaCompact implements OperationExecutor.Body<Compact, DeltaTable> {
  static final Set<String> MAPPED_OPTIONS =
      Set.of("target-file-size-bytes", "delete-ratio-threshold");
  private static final Logger PROGRESS =
      LoggerFactory.getLogger("dev.resurfacer.maintain.progress");
  private static final String CONF = "spark.databricks.delta.optimize.";
  private final SparkDelta spark;

  SparkDeltaCompact(SparkDelta spark) {
    this.spark = spark;
  }

  @Override
  public Step execute(Compact op, DeltaTable t, Mode mode) {
    refuseUnmapped(op);
    Snapshot snapshot = t.latest();
    if (KernelInternals.protocol(snapshot).writerFeatures().contains("clustering")) {
      throw new SafetyRefusal(t.name()
          + " is liquid-clustered: delta-spark's OPTIMIZE clusters it by its own selection (and refuses"
          + " ZORDER BY), which our preview does not plan; use --engine local");
    }
    CompactionOptions options = CompactionOptions.of(op);
    CompactionPlan plan = CompactionPlanner.plan(t, snapshot, options);
    List<LiveFile> planned = plan.zOrdered()
        ? LiveFiles.of(t, snapshot)
        : plan.bins().stream().flatMap(b -> b.files().stream()).toList();
    if (!plan.zOrdered()) {
      plan.bins().stream().filter(b -> b.files().size() == 1).findFirst().ifPresent(lone -> {
        throw new SafetyRefusal("our plan rewrites " + lone.files().get(0).file()
            + " alone to purge its deleted rows; delta-spark's"
            + " OPTIMIZE never rewrites a file alone in its bin (REORG TABLE … APPLY (PURGE) does), so its result would differ from the"
            + " preview; raise --delete-ratio-threshold or use --engine local");
      });
    }
    long files = planned.size();
    long bytes = planned.stream().mapToLong(LiveFile::size).sum();
    long groups = plan.zOrdered()
        ? planned.stream().map(LiveFile::partitionValues).distinct().count()
        : plan.bins().size();
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("groups", groups);
    metrics.put("files_to_rewrite", files);
    metrics.put("bytes_to_rewrite", bytes);
    String statement = "OPTIMIZE " + SparkDelta.relation(t)
        + (plan.zOrdered()
            ? " ZORDER BY ("
                + plan.zOrderColumns().stream()
                    .map(c -> "`" + c.replace("`", "``") + "`")
                    .collect(Collectors.joining(", "))
                + ")"
            : "");
    if (files == 0 || (!plan.zOrdered() && plan.bins().isEmpty())) {
      return Step.nothingToDo(
          "nothing to compact"
              + (plan.skipped().isEmpty() ? "" : ": skips " + String.join("; ", plan.skipped())),
          metrics);
    }
    String relation = spark.sameTable(t, snapshot);
    String what = String.format(
        "%d file(s) (%s) in %d %s at version %d",
        files,
        ByteSizes.format(bytes),
        groups,
        plan.zOrdered() ? "partition(s), every file of each" : "bin(s)",
        snapshot.getVersion());
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "delta-spark's " + (plan.zOrdered() ? "OPTIMIZE ZORDER BY" : "OPTIMIZE")
              + " would rewrite " + what + " on spark (" + spark.sql().describe() + ")",
          metrics);
    }
    long target = plan.targetFileSize();
    spark.sql().rows("SET " + CONF + "minFileSize=" + (target * 3 / 4));
    spark.sql().rows("SET " + CONF + "maxFileSize=" + target);
    spark.sql().rows("SET " + CONF + "maxDeletedRowsRatio=" + options.deletedRowRatio());
    long before = snapshot.getVersion();
    PROGRESS.info("table={} operation=compact engine=spark {}", t.name(), statement);
    spark.sql().rows(statement);
    Snapshot after = t.latest();
    if (after.getVersion() == before) {
      return Step.nothingToDo(
          "delta-spark's OPTIMIZE committed nothing (the preview planned " + what + ")", metrics);
    }
    String verified = verify(relation, t, before, after.getVersion());
    Set<StoredFile> expected = planned.stream().map(LiveFile::file).collect(Collectors.toSet());
    Set<StoredFile> was = SparkDelta.liveFiles(t, snapshot);
    Set<StoredFile> now = SparkDelta.liveFiles(t, after);
    Set<StoredFile> removed = new HashSet<>(was);
    removed.removeAll(now);
    Set<StoredFile> added = new HashSet<>(now);
    added.removeAll(was);
    long removedBytes = LiveFiles.of(t, snapshot).stream()
        .filter(f -> removed.contains(f.file()))
        .mapToLong(LiveFile::size)
        .sum();
    metrics.put("rewritten_files", (long) removed.size());
    metrics.put("rewritten_bytes", removedBytes);
    metrics.put("added_files", (long) added.size());
    metrics.put("versions", after.getVersion() - before);
    String drift = drift(expected, removed);
    metrics.put("preview_mismatch", drift.isEmpty() ? 0L : 1L);
    return Step.done(
        String.format(
            "delta-spark's %s rewrote %d file(s) (%s) into %d at version %d, verified: %s; %s",
            plan.zOrdered() ? "OPTIMIZE ZORDER BY" : "OPTIMIZE",
            removed.size(),
            ByteSizes.format(removedBytes),
            added.size(),
            after.getVersion(),
            verified,
            drift.isEmpty() ? "the files it removed are the preview's" : drift),
        metrics);
  }

  static void refuseUnmapped(Compact op) {
    if (op.options().containsKey(Compact.WHERE) || op.options().containsKey(Compact.PARTITION)) {
      throw new SafetyRefusal(
          "--where/--partition on Delta tables are not carried to delta-spark's OPTIMIZE on this build; use --engine local");
    }
    Set<String> unmapped = op.options().keySet().stream()
        .filter(k -> !MAPPED_OPTIONS.contains(k))
        .collect(Collectors.toCollection(TreeSet::new));
    if (!unmapped.isEmpty()) {
      throw new SafetyRefusal(
          "delta-spark's OPTIMIZE has no equivalent of " + String.join(", ", unmapped)
              + " (it takes the target file size and the delete-ratio threshold); drop them or use --engine local");
    }
    if (!op.strategy().equals("binpack") && !op.strategy().equals("zorder")) {
      throw new SafetyRefusal("delta-spark's OPTIMIZE bin-packs or z-orders (no " + op.strategy()
          + "); Delta tables have no declared sort order");
    }
  }

  /**
   * Every {@code OPTIMIZE} version after {@code before}, against its parent, on the cluster; another
   * writer's commit between is not compared (it may change rows). A mismatch is undone by
   * {@link OptimizeUndo} when the bad version is still the newest, in a commit made only on it.
   */
  private String verify(String relation, DeltaTable t, long before, long newest) {
    Map<Long, String> operations = spark.operationsAfter(relation, before, newest);
    StringBuilder checked = new StringBuilder();
    for (Map.Entry<Long, String> e : operations.entrySet()) {
      if (!e.getValue().equals("OPTIMIZE")) {
        continue;
      }
      long v = e.getKey();
      SparkContent parent = spark.contentAt(relation, v - 1);
      SparkContent rewritten = spark.contentAt(relation, v);
      if (!parent.equals(rewritten)) {
        String undo;
        try {
          undo = OptimizeUndo.undo(t, v, Clock.systemUTC()).describe();
        } catch (RuntimeException failed) {
          undo = "not undone: " + failed.getMessage() + "; inspect version " + v
              + " and undo it by hand";
        }
        throw new IllegalStateException("content changed from " + parent + " to " + rewritten
            + " in version " + v + "; " + undo);
      }
      checked
          .append(checked.length() == 0 ? "" : ", ")
          .append(rewritten)
          .append(" at version ")
          .append(v);
    }
    if (checked.length() == 0) {
      throw new IllegalStateException("versions " + (before + 1) + ".." + newest + " of " + t.name()
          + " hold no OPTIMIZE commit (" + operations.values() + "); nothing was verified");
    }
    return checked + ", each equal to its parent";
  }

  /** Empty when delta-spark removed exactly the planned files; otherwise what differed, for the report. */
  static String drift(Set<StoredFile> planned, Set<StoredFile> removed) {
    Set<String> kept = planned.stream()
        .filter(f -> !removed.contains(f))
        .map(StoredFile::toString)
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> extra = removed.stream()
        .filter(f -> !planned.contains(f))
        .map(StoredFile::toString)
        .collect(Collectors.toCollection(TreeSet::new));
    if (kept.isEmpty() && extra.isEmpty()) {
      return "";
    }
    return "unlike the preview, delta-spark left " + kept.size() + " planned file(s)"
        + (kept.isEmpty() ? "" : " (e.g. " + kept.iterator().next() + ")") + " and rewrote "
        + extra.size() + " unplanned"
        + (extra.isEmpty() ? "" : " (e.g. " + extra.iterator().next() + ")");
  }
}
