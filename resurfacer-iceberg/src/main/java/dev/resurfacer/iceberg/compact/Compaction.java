package dev.resurfacer.iceberg.compact;

import dev.resurfacer.iceberg.upgrade.RowLineage;
import dev.resurfacer.progress.Progress;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * Bin-pack compaction. Planning is Iceberg core's ({@link BinPackRewriteFilePlanner}, through
 * {@link GroupPlanner}); {@link GroupScheduler} runs each group's rewrite and verifies its rows
 * before it may commit; {@link CommitPhase} commits {@code replace} snapshots at the starting
 * sequence number that carry deletes a writer committed meanwhile onto the new files; {@link
 * CommittedTotals} reads back what the run did.
 *
 * <pre>
 * PlannedCompaction plan = Compaction.plan(table, CompactionOptions.defaults()); // changes nothing
 * CompactionResult done = Compaction.execute(plan);                            // commits
 * </pre>
 */
public final class Compaction {
  static final String SUMMARY_PROPERTY = "resurfacer.operation";

  private Compaction() {}

  /** What a compaction of {@code table} would rewrite; reads the table, changes nothing. */
  public static PlannedCompaction plan(Table table, CompactionOptions options) {
    return GroupPlanner.plan(table, options);
  }

  /** {@link #plan} as {@code compact} without {@code --yes} shows it: the plan, and that nothing changed. */
  public static dev.resurfacer.report.Readout preview(PlannedCompaction plan) {
    return new CompactionText.Preview(plan.readout());
  }

  public static CompactionResult execute(PlannedCompaction plan) {
    return execute(plan, Progress.NONE, message -> {});
  }

  /**
   * @param bar told of each group as it finishes: its files and bytes, out of the plan's
   * @param lines one line per finished group, for a log
   */
  public static CompactionResult execute(
      PlannedCompaction plan, Progress bar, Consumer<String> lines) {
    return run(plan, bar, lines, null);
  }

  /** The one seam for tests: {@code override} picks each group's runner instead of the plan, to inject faults. */
  static CompactionResult execute(PlannedCompaction plan, RewriterChoice override) {
    return run(plan, Progress.NONE, message -> {}, override);
  }

  /** @param override picks each group's runner; null to follow the plan */
  private static CompactionResult run(
      PlannedCompaction plan, Progress bar, Consumer<String> lines, RewriterChoice override) {
    long started = System.nanoTime();
    long smallGroupBytes =
        plan.options().smallGroupBytes(); // a bad value is a usage error before anything is written
    PlannedCompaction planned = assigningRowIds(plan, lines);
    String verification = planned.options().verification().label();
    if (planned.groups().isEmpty()) {
      return CommittedTotals.none(planned.table(), started, verification);
    }
    RewriterChoice choice = override != null
        ? override
        : (t, g, o, ordering) -> GroupPlanner.rewriterFor(t, o, planned.whyNotDuckDb(g));
    CommitPhase commits = new CommitPhase(planned);
    List<RewrittenGroup> rewritten =
        new GroupScheduler(planned, choice, bar, lines).run(smallGroupBytes, commits::offer);
    return CommittedTotals.of(planned, commits.finish(rewritten), started, verification);
  }

  /** The plan, made again after the table's rows got their row ids when it has some to rewrite: see {@link RowLineage}. */
  private static PlannedCompaction assigningRowIds(PlannedCompaction plan, Consumer<String> lines) {
    if (!plan.groups().isEmpty() && RowLineage.assign(plan.table(), SUMMARY_PROPERTY) != null) {
      lines.accept(
          "row ids assigned to the rows written before the upgrade to v3 (a snapshot that changes no file)");
      return GroupPlanner.plan(plan.table(), plan.options());
    }
    return plan;
  }

  /** Picks the runner for a group; tests substitute one to inject faults. */
  @FunctionalInterface
  interface RewriterChoice {
    GroupRewriter choose(
        Table table, RewriteFileGroup group, CompactionOptions options, ResolvedOrdering ordering);
  }

  /**
   * One line that says what went wrong. DuckDB's JDBC driver reports a failed streaming query as
   * "Attempting to execute an unsuccessful or closed pending query result" and puts DuckDB's own
   * error on the next line: that line is the one worth showing.
   */
  static String failureMessage(Throwable e) {
    String text = e.getMessage();
    if (text == null) {
      return e.getClass().getSimpleName();
    }
    List<String> lines =
        text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    for (String line : lines) {
      if (!line.contains("Attempting to execute an unsuccessful or closed pending query result")) {
        return line;
      }
    }
    return lines.isEmpty() ? e.getClass().getSimpleName() : lines.get(0);
  }

  static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }
}
