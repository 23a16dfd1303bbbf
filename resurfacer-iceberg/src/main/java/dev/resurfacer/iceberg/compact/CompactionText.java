package dev.resurfacer.iceberg.compact;

import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/** The text forms of {@link CompactionPlan} and {@link CompactionResult}, as {@code plan} and {@code compact} print them. */
final class CompactionText {
  private CompactionText() {}

  static String render(CompactionPlan p) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(
        Locale.ROOT,
        "compaction plan for %s at snapshot %s: %d live data files (%s), target file size %s, %s%n",
        p.table(),
        p.snapshotId(),
        p.liveDataFiles(),
        ByteSizes.format(p.liveDataBytes()),
        ByteSizes.format(p.targetFileSizeBytes()),
        p.ordering()));
    p.warnings().forEach(w -> b.append("warning: ").append(w).append(System.lineSeparator()));
    for (CompactionPlan.Group g : p.groups()) {
      b.append(String.format(
          Locale.ROOT,
          "  group %d %-28s %4d files %9s, %d delete files -> ~%d files, runner %s%s%n",
          g.index(),
          g.partition(),
          g.files(),
          ByteSizes.format(g.bytes()),
          g.deleteFiles(),
          g.expectedOutputFiles(),
          g.runner(),
          g.runnerReason().isEmpty() || g.runnerReason().equals("default")
              ? ""
              : " (" + g.runnerReason() + ")"));
    }
    b.append(String.format(
        Locale.ROOT,
        "would rewrite %d files (%s) in %d groups",
        p.filesToRewrite(),
        ByteSizes.format(p.bytesToRewrite()),
        p.groups().size()));
    if (p.skippedFiles() > 0) {
      b.append(
          String.format(Locale.ROOT, "; skips %d files: %s", p.skippedFiles(), p.skippedBecause()));
    }
    return b.toString();
  }

  static String render(CompactionResult r) {
    StringBuilder b = new StringBuilder();
    if (r.groups().isEmpty()) {
      return "nothing to compact in " + r.table();
    }
    for (CompactionResult.Group g : r.groups()) {
      b.append(String.format(
          Locale.ROOT,
          "group %d %-28s %-8s %-19s %4d files %9s -> %3d files %9s  %d deletes applied%s%n",
          g.index(),
          g.partition(),
          g.runner(),
          g.status().name().toLowerCase(Locale.ROOT),
          g.inputFiles(),
          ByteSizes.format(g.inputBytes()),
          g.outputFiles(),
          ByteSizes.format(g.outputBytes()),
          g.deleteFiles(),
          g.message() == null ? "" : "  (" + g.message() + ")"));
    }
    b.append(String.format(
        Locale.ROOT,
        "compacted %s: %d files (%s) -> %d files (%s), %d rows, %d delete files applied, %d dangling delete files left, "
            + "snapshots %s, %.1fs, peak RSS %s, verified: %s",
        r.table(),
        r.rewrittenFiles(),
        ByteSizes.format(r.rewrittenBytes()),
        r.addedFiles(),
        ByteSizes.format(r.addedBytes()),
        r.rows(),
        r.deleteFilesApplied(),
        r.danglingDeleteFiles(),
        r.snapshotIds(),
        r.millis() / 1000.0,
        r.peakRssBytes() < 0 ? "unknown" : ByteSizes.format(r.peakRssBytes()),
        r.verification()));
    return b.toString();
  }

  /** {@code compact} without {@code --yes}: the plan, and that nothing changed. */
  record Preview(CompactionPlan plan) implements dev.resurfacer.report.Readout {
    @Override
    public String render() {
      return plan.render() + "\npreview only: nothing was changed (run with --yes to compact)";
    }

    @Override
    public Object json() {
      return plan;
    }
  }
}
