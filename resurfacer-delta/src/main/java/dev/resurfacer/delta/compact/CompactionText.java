package dev.resurfacer.delta.compact;

import dev.resurfacer.units.ByteSizes;
import java.util.List;
import java.util.Locale;

/** The JSON and text forms of {@link CompactionPlan} and {@link CompactionResult}, as {@code plan} and {@code compact} print them. */
final class CompactionText {
  private CompactionText() {}

  record PlanJson(
      String table,
      String format,
      long version,
      String strategy,
      List<String> zOrderColumns,
      long targetFileSize,
      String runner,
      String runnerReason,
      List<BinJson> bins,
      List<String> skipped) {
    static PlanJson of(CompactionPlan p) {
      return new PlanJson(
          p.table(),
          dev.resurfacer.formats.Format.DELTA.id(),
          p.version(),
          p.zOrdered() ? "zorder" : "binpack",
          p.zOrderColumns(),
          p.targetFileSize(),
          p.runner(),
          p.runnerReason(),
          p.bins().stream()
              .map(b -> new BinJson(
                  b.partition(),
                  b.files().stream().map(f -> f.file().toString()).toList(),
                  b.files().stream().mapToLong(f -> f.size()).sum(),
                  b.files().stream().filter(f -> f.deletionVector().isPresent()).count()))
              .toList(),
          p.skipped());
    }
  }

  record BinJson(
      java.util.Map<String, String> partition,
      List<String> files,
      long bytes,
      long filesWithDeletionVectors) {}

  static String render(CompactionPlan p) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(
        Locale.ROOT,
        "compaction plan for %s at version %d: %s, target file size %s%n",
        p.table(),
        p.version(),
        p.zOrdered()
            ? "z-order by " + String.join(", ", p.zOrderColumns())
                + " (every file of each partition)"
            : "bin-pack",
        ByteSizes.format(p.targetFileSize())));
    b.append(String.format(Locale.ROOT, "runner %s: %s%n", p.runner(), p.runnerReason()));
    int i = 0;
    for (CompactionPlan.Bin bin : p.bins()) {
      long bytes = bin.files().stream().mapToLong(f -> f.size()).sum();
      long dvs =
          bin.files().stream().filter(f -> f.deletionVector().isPresent()).count();
      b.append(String.format(
          Locale.ROOT,
          "  bin %d %-28s %4d files %9s, %d with deletion vectors%n",
          ++i,
          bin.partition().isEmpty() ? "(unpartitioned)" : bin.partition().toString(),
          bin.files().size(),
          ByteSizes.format(bytes),
          dvs));
    }
    b.append(String.format(
        Locale.ROOT,
        "would rewrite %d files (%s) in %d bins",
        p.inputFiles(),
        ByteSizes.format(p.inputBytes()),
        p.bins().size()));
    if (!p.skipped().isEmpty()) {
      b.append("; skips ").append(String.join("; ", p.skipped()));
    }
    return b.append("\npreview only: nothing was changed (run compact with --yes to compact)")
        .toString();
  }

  static String render(CompactionResult r) {
    StringBuilder b = new StringBuilder();
    if (r.plan().bins().isEmpty()) {
      return "nothing to compact in " + r.plan().table();
    }
    List<String> failed = r.failedBins();
    failed.forEach(f -> b.append("failed: ").append(f).append('\n'));
    if (r.committedVersions().isEmpty()) {
      // a run whose every bin failed compacted nothing, and says so last
      return b.append(String.format(
              Locale.ROOT,
              "nothing compacted in %s: %d of %d bins failed (above), the table is as it was",
              r.plan().table(),
              failed.size(),
              r.plan().bins().size()))
          .toString();
    }
    b.append(String.format(
        Locale.ROOT,
        "compacted %s: %d files (%s) -> %d files (%s), %d rows, versions %s (OPTIMIZE, dataChange=false)",
        r.plan().table(),
        r.removedFiles(),
        ByteSizes.format(r.removedBytes()),
        r.addedFiles(),
        ByteSizes.format(r.addedBytes()),
        r.rows(),
        r.committedVersions()));
    if (!r.verification().equals("content")) {
      b.append(", verified by ").append(r.verification());
    }
    if (r.verificationCpuNanos() > 0) {
      b.append(
          String.format(Locale.ROOT, ", verification %.2f CPU-s", r.verificationCpuNanos() / 1e9));
    }
    if (!failed.isEmpty()) {
      b.append(String.format(
          Locale.ROOT,
          "%n%d of %d bins failed (above): their files are as they were",
          failed.size(),
          r.plan().bins().size()));
    }
    return b.toString();
  }
}
