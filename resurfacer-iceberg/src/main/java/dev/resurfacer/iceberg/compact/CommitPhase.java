package dev.resurfacer.iceberg.compact;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * Commits verified groups as {@code replace} snapshots while the rest still run (as many per
 * commit as {@code --groups-per-commit}/{@code --commit-every} allow), carrying deletes a writer
 * committed meanwhile onto the new files ({@link CarryingCommits}), and then says of each group
 * whether it committed.
 */
final class CommitPhase {
  /** @param groups each group's final status, in plan order; @param committed the groups now in the table */
  record Outcome(List<CompactionResult.Group> groups, Set<RewriteFileGroup> committed) {}

  private final PlannedCompaction plan;
  private final CarryingCommits commits;

  CommitPhase(PlannedCompaction plan) {
    this.plan = plan;
    CompactionOptions options = plan.options();
    this.commits = new CarryingCommits(
        plan.table(),
        plan.startingSnapshotId(),
        options.useStartingSequenceNumber(),
        options.filter(),
        options.shared().groupsPerCommit(plan.groups().size()),
        options.shared().commitEvery().orElse(null),
        Map.of(Compaction.SUMMARY_PROPERTY, "compact"),
        java.util.function.UnaryOperator.identity());
  }

  /** A verified group, ready to commit; called from the scheduler's threads. */
  void offer(RewriteFileGroup group) {
    commits.offer(group);
  }

  /** Commits what is still pending; {@code rewritten} holds one entry per planned group, in plan order. */
  Outcome finish(List<RewrittenGroup> rewritten) {
    CarryingCommits.Outcome outcome = commits.finish();
    List<RewriteFileGroup> groups = plan.groups();
    List<CompactionResult.Group> finals = new ArrayList<>();
    for (int i = 0; i < rewritten.size(); i++) {
      RewrittenGroup r = rewritten.get(i);
      RewriteFileGroup group = groups.get(i);
      finals.add(
          switch (r.verdict()) {
            case VERIFIED ->
              outcome.committed().contains(group)
                  ? r.as(Status.COMMITTED, outcome.notes().getOrDefault(group, r.message()))
                  : r.as(
                      Status.NOT_COMMITTED,
                      outcome.failures().getOrDefault(group, "not committed; new files removed"));
            case VERIFICATION_FAILED -> r.as(Status.VERIFICATION_FAILED, r.message());
            case FAILED -> r.as(Status.FAILED, r.message());
          });
    }
    finals.sort(Comparator.comparingInt(CompactionResult.Group::index));
    return new Outcome(finals, outcome.committed());
  }
}
