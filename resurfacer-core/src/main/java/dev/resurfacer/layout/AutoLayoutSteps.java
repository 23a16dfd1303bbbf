package dev.resurfacer.layout;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Compact;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The format-neutral part of {@code compact.layout: auto}: where the reports are, the threshold, the
 * evidence a run records, and the compaction a recommendation becomes. Each format adds how it
 * reads its table and what it keeps between runs.
 */
public final class AutoLayoutSteps {
  private AutoLayoutSteps() {}

  /** The {@code compact.scan-reports} location; a usage error without one. */
  public static Path reports(Compact op) {
    String where = op.options().get(Compact.SCAN_REPORTS);
    if (where == null || where.isBlank()) {
      throw new UsageException(
          "compact.layout: auto needs compact.scan-reports (the directory the collector writes, docs/advise.md)");
    }
    return Path.of(where);
  }

  public static double minGain(Compact op) {
    return minGain(op.options());
  }

  /** {@code compact.layout-min-gain} of a policy's compact options, or the default. */
  public static double minGain(Map<String, String> compactOptions) {
    String v = compactOptions.get(Compact.LAYOUT_MIN_GAIN);
    return v != null ? Double.parseDouble(v) : Compact.DEFAULT_LAYOUT_MIN_GAIN;
  }

  /** The step's message: the decision and its evidence first; a preview says it would apply. */
  public static String message(String decision, boolean preview, String stepMessage) {
    return (preview
            ? decision.replaceFirst("^layout auto: applying", "layout auto: would apply")
            : decision)
        + "; " + stepMessage;
  }

  /** The evidence as counters (files per query ×100, gain in percent, scans). */
  public static Map<String, Long> metrics(Advice a) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("layout_scans", (long) a.scans());
    m.put("layout_skipped_report_lines", a.skippedLines());
    if (a.current() != null) {
      m.put("layout_files_per_query_now_x100", Math.round(a.current().filesPerQuery() * 100));
    }
    Advice.Recommendation r = a.recommendation();
    if (r != null) {
      m.put("layout_files_per_query_expected_x100", Math.round(r.expectedFilesPerQuery() * 100));
      m.put("layout_gain_pct", Math.round(r.gain() * 100));
    }
    return m;
  }

  /** The recommendation as a compaction: its strategy, columns and target size, every file rewritten. */
  public static Compact applying(Advice.Recommendation r, Compact base) {
    return new Compact(r.strategy(), r.orderBy(), base.options())
        .withOption("target-file-size-bytes", Long.toString(r.targetFileSize()))
        .withOption("rewrite-all", "true");
  }
}
