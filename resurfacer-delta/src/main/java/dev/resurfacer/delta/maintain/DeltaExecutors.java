package dev.resurfacer.delta.maintain;

import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.CompactionPlan;
import dev.resurfacer.delta.compact.CompactionResult;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.compact.DeltaLayouts;
import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.log.LogCleanup;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.delta.vacuum.VacuumResult;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.AutoLayoutSteps;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Checkpoint;
import dev.resurfacer.maintain.CleanupLog;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The built-in operations on Delta tables, each delegating to the verb's own class. */
final class DeltaExecutors {
  private DeltaExecutors() {}

  static List<OperationExecutor<?, DeltaTable>> all(Clock clock) {
    return List.of(
        OperationExecutor.of(Compact.class, (op, t, mode) -> compact(op, t, mode, clock)),
        OperationExecutor.of(Vacuum.class, (op, t, mode) -> vacuum(op, t, mode, clock)),
        OperationExecutor.of(Checkpoint.class, (op, t, mode) -> checkpoint(op, t, mode, clock)),
        OperationExecutor.of(CleanupLog.class, (op, t, mode) -> cleanupLog(op, t, mode, clock)));
  }

  static CompactionOptions options(Compact op) {
    return CompactionOptions.of(op);
  }

  private static Step compact(Compact op, DeltaTable t, Mode mode, Clock clock) {
    if (op.autoLayout()) {
      return autoLayout(op, t, mode, clock);
    }
    DeltaCompactor.Plan planned = DeltaCompactor.plan(t, options(op));
    if (mode == Mode.PREVIEW) {
      CompactionPlan plan = planned.preview();
      Map<String, Long> m = Map.of(
          "groups",
          (long) plan.bins().size(),
          "files_to_rewrite",
          plan.inputFiles(),
          "bytes_to_rewrite",
          plan.inputBytes());
      if (plan.bins().isEmpty()) {
        return Step.nothingToDo(nothing(plan), m);
      }
      return Step.previewed(
          String.format(
              "would rewrite %d file(s) (%s) in %d bin(s)",
              plan.inputFiles(),
              ByteSizes.format(plan.inputBytes()),
              plan.bins().size()),
          m);
    }
    CompactionResult r = DeltaCompactor.execute(planned, clock);
    Map<String, Long> m = Map.of(
        "rewritten_files",
        r.removedFiles(),
        "rewritten_bytes",
        r.removedBytes(),
        "added_files",
        r.addedFiles(),
        "added_bytes",
        r.addedBytes(),
        "commits",
        (long) r.committedVersions().size());
    if (!r.failedBins().isEmpty()) {
      throw new IllegalStateException(r.failedBins().size() + " of "
          + r.plan().bins().size() + " bin(s) failed, first: " + r.failedBins().get(0));
    }
    if (r.plan().bins().isEmpty()) {
      return Step.nothingToDo(nothing(r.plan()), m);
    }
    return Step.done(
        String.format(
            "rewrote %d file(s) (%s) into %d (%s), %d rows verified, versions %s (OPTIMIZE)",
            r.removedFiles(),
            ByteSizes.format(r.removedBytes()),
            r.addedFiles(),
            ByteSizes.format(r.addedBytes()),
            r.rows(),
            r.committedVersions()),
        m);
  }

  /**
   * {@code compact.layout: auto} on Delta: the recommended z-order (or bin-pack) at the recommended
   * size, or the configured strategy when nothing is worth doing. Reports may name the table by its
   * configured name or by its location.
   */
  private static Step autoLayout(Compact op, DeltaTable t, Mode mode, Clock clock) {
    java.nio.file.Path where = AutoLayoutSteps.reports(op);
    ScanReports.Loaded loaded = ScanReports.read(where, t.name());
    if (loaded.scans().isEmpty()) {
      loaded = ScanReports.read(where, t.uri());
    }
    Advice a = DeltaLayouts.advise(t.name(), t, loaded, AutoLayoutSteps.minGain(op));
    Compact base = op.withoutLayoutSettings();
    Advice.Recommendation r = a.recommendation();
    Step s = compact(r != null ? AutoLayoutSteps.applying(r, base) : base, t, mode, clock);
    Map<String, Long> m = new java.util.LinkedHashMap<>(s.metrics());
    m.putAll(AutoLayoutSteps.metrics(a));
    String decision = r != null
        ? "layout auto: applying " + a.reason()
        : "layout auto: the configured " + base.strategy() + " (" + a.reason() + ")";
    return new Step(
        s.outcome(), AutoLayoutSteps.message(decision, mode == Mode.PREVIEW, s.message()), m);
  }

  private static String nothing(CompactionPlan plan) {
    return "nothing to compact"
        + (plan.skipped().isEmpty() ? "" : ": skips " + String.join("; ", plan.skipped()));
  }

  private static Step vacuum(Vacuum op, DeltaTable t, Mode mode, Clock clock) {
    VacuumOptions options = VacuumOptions.of(op);
    VacuumPlan plan = DeltaVacuum.plan(t, options, clock);
    String rule = "retention " + Durations.format(java.time.Duration.ofMillis(plan.retentionMs()));
    if (plan.deletions().isEmpty()) {
      return Step.nothingToDo(
          "no file past the " + rule + " among " + plan.listedFiles() + " listed",
          Map.of("listed_files", plan.listedFiles(), "deleted_files", 0L, "deleted_bytes", 0L));
    }
    String what = plan.deletions().size() + " file(s) (" + ByteSizes.format(plan.bytes()) + ")";
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "would delete " + what + ", " + rule,
          Map.of(
              "listed_files",
              plan.listedFiles(),
              "files_to_delete",
              (long) plan.deletions().size(),
              "bytes_to_delete",
              plan.bytes()));
    }
    VacuumResult r = DeltaVacuum.execute(t, plan, options, clock);
    return Step.done(
        "deleted " + r.deleted() + " file(s) (" + ByteSizes.format(r.deletedBytes()) + "), " + rule
            + (r.skipped().isEmpty()
                ? ""
                : "; left " + r.skipped().size() + " that changed since the plan"),
        Map.of(
            "listed_files",
            plan.listedFiles(),
            "deleted_files",
            r.deleted(),
            "deleted_bytes",
            r.deletedBytes()));
  }

  private static Step checkpoint(Checkpoint op, DeltaTable t, Mode mode, Clock clock) {
    Checkpointer.Plan plan = Checkpointer.plan(t, clock);
    Checkpointer.Outcome o = plan.preview();
    Map<String, Long> m = Map.of("version", o.version());
    if (plan.checkpointed()) {
      return Step.nothingToDo(o.message(), m);
    }
    if (mode == Mode.PREVIEW) {
      return Step.previewed(o.message(), m);
    }
    Checkpointer.Outcome w = Checkpointer.execute(plan);
    return w.written() ? Step.done(w.message(), m) : Step.nothingToDo(w.message(), m);
  }

  private static Step cleanupLog(CleanupLog op, DeltaTable t, Mode mode, Clock clock) {
    LogCleanup.Plan plan = LogCleanup.plan(t, Optional.ofNullable(op.retention()), clock);
    String rule = "retention " + Durations.format(java.time.Duration.ofMillis(plan.retentionMs()));
    if (plan.deletions().isEmpty()) {
      return Step.nothingToDo(
          "no log entry before a checkpoint is past the " + rule, Map.of("deleted_files", 0L));
    }
    String what = plan.deletions().size() + " log entr(ies) (" + ByteSizes.format(plan.bytes())
        + ") before version " + plan.keepFromVersion();
    if (mode == Mode.PREVIEW) {
      return Step.previewed("would delete " + what + ", " + rule, Map.of("files_to_delete", (long)
          plan.deletions().size()));
    }
    LogCleanup.Result r = LogCleanup.execute(t, plan);
    if (r.deleted() < plan.deletions().size()
        && r.skipped().stream().anyMatch(s -> !s.endsWith("already gone"))) {
      throw new IllegalStateException("deleted " + r.deleted() + " of "
          + plan.deletions().size() + " log entries: " + r.skipped().get(0));
    }
    return Step.done(
        "deleted " + what, Map.of("deleted_files", r.deleted(), "deleted_bytes", r.deletedBytes()));
  }
}
