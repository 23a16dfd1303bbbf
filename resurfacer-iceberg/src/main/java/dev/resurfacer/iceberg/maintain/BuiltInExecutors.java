package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionPlan;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.compact.PlannedCompaction;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DanglingDeletesResult;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.layout.AutoLayout;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveDanglingDeletes;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.List;
import java.util.Map;

/** The built-in operations on Iceberg, each delegating to the verb's own library class. */
final class BuiltInExecutors {
  private static final org.slf4j.Logger PROGRESS =
      org.slf4j.LoggerFactory.getLogger("dev.resurfacer.maintain.progress");

  private BuiltInExecutors() {}

  /** @param fences what orphan removal respects beyond the table; null to check the table's own catalog only */
  static List<OperationExecutor<?, IcebergTable>> all(StorageFences fences, Progress progress) {
    return List.of(
        OperationExecutor.of(Compact.class, (op, t, mode) -> compact(op, t, mode, progress)),
        OperationExecutor.of(RemoveDanglingDeletes.class, BuiltInExecutors::danglingDeletes),
        OperationExecutor.of(RewriteManifests.class, BuiltInExecutors::manifests),
        OperationExecutor.of(
            ExpireSnapshots.class, (op, t, mode) -> expire(op, t, mode, fences, progress)),
        OperationExecutor.of(
            RemoveOrphans.class, (op, t, mode) -> orphans(op, t, mode, fences, progress)));
  }

  private static Step compact(Compact op, IcebergTable t, Mode mode, Progress progress) {
    if (op.autoLayout()) {
      AutoLayout.Decision d = AutoLayout.decide(t.name(), t.table(), op);
      Step s = compact(d.compact(), t, mode, progress);
      if (mode == Mode.COMMIT
          && d.applied() != null
          && s.outcome() == dev.resurfacer.report.Outcome.DONE) {
        AutoLayout.recordApplied(t.table(), d.applied());
      }
      Map<String, Long> m = new java.util.LinkedHashMap<>(s.metrics());
      m.putAll(d.metrics());
      return new Step(
          s.outcome(),
          dev.resurfacer.layout.AutoLayoutSteps.message(
              d.decision(), mode == Mode.PREVIEW, s.message()),
          m);
    }
    PlannedCompaction planned = Compaction.plan(t.table(), CompactionOptions.of(op));
    if (mode == Mode.PREVIEW) {
      CompactionPlan plan = planned.readout();
      Map<String, Long> m = Map.of(
          "groups",
          (long) plan.groups().size(),
          "files_to_rewrite",
          plan.filesToRewrite(),
          "bytes_to_rewrite",
          plan.bytesToRewrite());
      if (plan.groups().isEmpty()) {
        return Step.nothingToDo(nothing(plan), m);
      }
      return Step.previewed(
          String.format(
              "would rewrite %d file(s) (%s) in %d group(s)",
              plan.filesToRewrite(),
              ByteSizes.format(plan.bytesToRewrite()),
              plan.groups().size()),
          m);
    }
    // one plain log line per finished group: the progress of a long run, with its bytes/s
    CompactionResult r = Compaction.execute(
        planned,
        progress,
        line -> PROGRESS.info("table={} operation=compact {}", t.table().name(), line));
    // groups that carried a writer's concurrent deletes onto their new files (CarryingCommits'
    // note)
    long carrying = r.groups().stream()
        .filter(g -> g.status() == CompactionResult.Status.COMMITTED
            && g.message() != null
            && g.message().contains("carried ")
            && !g.message().contains("carried 0 "))
        .count();
    Map<String, Long> m = Map.of(
        "rewritten_files",
        r.rewrittenFiles(),
        "rewritten_bytes",
        r.rewrittenBytes(),
        "added_files",
        r.addedFiles(),
        "added_bytes",
        r.addedBytes(),
        "delete_files_applied",
        r.deleteFilesApplied(),
        "groups_carrying_concurrent_deletes",
        carrying);
    if (r.groups().isEmpty()) {
      return Step.nothingToDo(nothing(planned.readout()), m);
    }
    if (!r.allCommitted()) {
      CompactionResult.Group bad = r.groups().stream()
          .filter(g -> g.status() != CompactionResult.Status.COMMITTED)
          .findFirst()
          .orElseThrow();
      throw new IllegalStateException("group " + bad.index() + " (" + bad.partition() + ") "
          + bad.status().name().toLowerCase(java.util.Locale.ROOT)
          + (bad.message() == null ? "" : ": " + bad.message()));
    }
    return Step.done(
        String.format(
            "rewrote %d file(s) (%s) into %d (%s), applied %d delete file(s), verified: %s",
            r.rewrittenFiles(),
            ByteSizes.format(r.rewrittenBytes()),
            r.addedFiles(),
            ByteSizes.format(r.addedBytes()),
            r.deleteFilesApplied(),
            r.verification()),
        m);
  }

  private static String nothing(CompactionPlan plan) {
    if (plan.liveDataFiles() == 0) {
      return "no live data files";
    }
    return "nothing to compact: "
        + (plan.skippedBecause() == null ? "no group qualifies" : plan.skippedBecause());
  }

  private static Step danglingDeletes(RemoveDanglingDeletes op, IcebergTable t, Mode mode) {
    DanglingDeletes.Plan plan = DanglingDeletes.plan(t.name(), t.table());
    DanglingDeletesResult r = mode == Mode.COMMIT && !plan.dangling().isEmpty()
        ? DanglingDeletes.execute(plan)
        : plan.preview();
    Map<String, Long> m = Map.of(
        "delete_files", r.deleteFiles(), "dangling_files", r.files(), "dangling_bytes", r.bytes());
    if (r.files() == 0) {
      return Step.nothingToDo("no dangling delete files among " + r.deleteFiles(), m);
    }
    String what = r.files() + " dangling delete file(s) (" + ByteSizes.format(r.bytes()) + ")";
    return r.committed()
        ? Step.done("removed " + what, m)
        : Step.previewed("would remove " + what, m);
  }

  private static Step manifests(RewriteManifests op, IcebergTable t, Mode mode) {
    ManifestRewriter.Plan plan = ManifestRewriter.plan(t.name(), t.table(), op.sortBy());
    ManifestRewriteResult r = mode == Mode.COMMIT ? ManifestRewriter.execute(plan) : plan.preview();
    if (r.notNeeded().isPresent()) {
      return Step.nothingToDo(
          r.notNeeded().get(),
          Map.of(
              "data_manifests_before",
              (long) r.dataManifestsBefore(),
              "data_manifests_after",
              (long) r.dataManifestsBefore()));
    }
    // after a commit, the count the rewriter re-read from the new snapshot; in a preview, the
    // estimate
    Map<String, Long> m = Map.of(
        "data_manifests_before", (long) r.dataManifestsBefore(), "data_manifests_after", (long)
            (r.committed() ? r.dataManifestsAfter() : r.expectedDataManifests()));
    return r.committed()
        ? Step.done(
            "rewrote " + r.dataManifestsBefore() + " data manifest(s) into "
                + r.dataManifestsAfter(),
            m)
        : Step.previewed(
            "would rewrite " + r.dataManifestsBefore() + " data manifest(s) into about "
                + r.expectedDataManifests(),
            m);
  }

  private static Step expire(
      ExpireSnapshots op, IcebergTable t, Mode mode, StorageFences fences, Progress progress) {
    ExpireOptions options = ExpireOptions.of(op);
    SnapshotExpiry.Plan plan =
        SnapshotExpiry.plan(t.name(), t.table(), options, t.otherTables(fences));
    ExpireResult r = mode == Mode.COMMIT ? SnapshotExpiry.execute(plan, progress) : plan.preview();
    Map<String, Long> m = Map.of(
        "expired_snapshots",
        (long) r.snapshots().size(),
        "deleted_files",
        r.files(),
        "deleted_bytes",
        r.bytes());
    String rule =
        (op.olderThan() == null ? "the table's max age" : Durations.format(op.olderThan()))
            + ", keeping " + r.retainLast();
    if (r.snapshots().isEmpty()) {
      return Step.nothingToDo("no snapshot is past its retention (" + rule + ")", m);
    }
    String what = r.snapshots().size() + " snapshot(s) and " + r.files() + " file(s) ("
        + ByteSizes.format(r.bytes()) + ")";
    return r.committed()
        ? Step.done("expired " + what, m)
        : Step.previewed("would expire " + what, m);
  }

  private static Step orphans(
      RemoveOrphans op, IcebergTable t, Mode mode, StorageFences fences, Progress progress) {
    OrphanRemoval removal = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
        .olderThan(op.olderThan())
        .show(0)
        .quarantine(op.quarantine())
        .quarantineRetention(op.quarantineRetention())
        .onWarning(w -> PROGRESS.warn("table={} operation=remove-orphans warning: {}", t.name(), w))
        .progress(progress);
    if (fences != null) {
      removal = removal.fences(fences);
    }
    if (op.listing() != null) {
      removal = removal.listing(
          dev.resurfacer.iceberg.orphans.Inventory.open(op.listing(), t.table().io()));
    }
    OrphanReport r = mode == Mode.COMMIT ? removal.execute() : removal.plan();
    Map<String, Long> m = Map.of(
        "listed_files",
        r.census().listed().files(),
        "orphan_files",
        r.census().orphans().files(),
        "orphan_bytes",
        r.census().orphans().bytes(),
        "deleted_files",
        r.removed().deleted().files(),
        "deleted_bytes",
        r.removed().deleted().bytes(),
        "kept_too_young_files",
        r.census().keptTooYoung().files(),
        "quarantined_files",
        r.removed().quarantined().files(),
        "other_tables_checked",
        (long) r.fenced().otherTablesChecked());
    if (r.removed().failedDeletes() > 0) {
      throw new IllegalStateException(
          r.removed().failedDeletes() + " orphan file(s) could not be deleted");
    }
    if (r.census().orphans().files() == 0) {
      return Step.nothingToDo(
          "no orphan files older than " + Durations.format(op.olderThan()) + " among "
              + r.census().listed().files() + " listed"
              + (r.census().keptTooYoung().files() > 0
                  ? " (" + r.census().keptTooYoung().files() + " unreferenced but too young)"
                  : ""),
          m);
    }
    String what = r.census().orphans().files() + " orphan file(s) ("
        + ByteSizes.format(r.census().orphans().bytes()) + ")";
    String checked = "; " + r.fenced().otherTablesChecked() + " other table(s) checked";
    if (r.removed().quarantineRun() != null) {
      return Step.done(
          "quarantined " + what + " as run " + r.removed().quarantineRun() + checked, m);
    }
    return r.deleted()
        ? Step.done("deleted " + what + checked, m)
        : Step.previewed("would delete " + what + checked, m);
  }
}
