package dev.resurfacer.report;

import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/** The run as people read it in a terminal or a cron mail: one block per table, one line per operation. */
public final class TextReport {
  private TextReport() {}

  public static String render(RunReport r) {
    StringBuilder b = new StringBuilder();
    for (TableReport t : r.tables()) {
      b.append(String.format(
          Locale.ROOT,
          "%s.%s  %s  %.1fs%s%n",
          t.catalog(),
          t.table(),
          t.outcome().json(),
          t.durationMs() / 1000.0,
          t.message() == null ? "" : "  " + t.message()));
      if (t.before() != null) {
        b.append("  ").append(shape(t.before(), t.after())).append('\n');
      }
      for (OperationResult o : t.operations()) {
        b.append(String.format(
            Locale.ROOT,
            "  %-24s %-14s %6.1fs  %s%n",
            o.operation(),
            o.outcome().json(),
            o.durationMs() / 1000.0,
            o.message()));
      }
    }
    b.append(String.format(
        Locale.ROOT,
        "%s: %d table(s): %d done, %d previewed, %d skipped, %d refused, %d failed in %.1fs%n",
        r.mode(),
        r.tables().size(),
        r.count(Outcome.DONE),
        r.count(Outcome.PREVIEWED),
        r.count(Outcome.SKIPPED),
        r.count(Outcome.REFUSED),
        r.count(Outcome.FAILED),
        r.durationMs() / 1000.0));
    if (r.mode().equals("preview")) {
      b.append("preview only: nothing was changed (pass --yes to maintain)\n");
    }
    return b.toString().stripTrailing();
  }

  static String shape(TableStats before, TableStats after) {
    if (after == null) {
      return String.format(
          Locale.ROOT,
          "%d data file(s) %s, %d small, %d delete file(s), %d snapshot(s), %d manifest(s)",
          before.dataFiles(),
          ByteSizes.format(before.dataBytes()),
          before.smallDataFiles(),
          before.deleteFiles(),
          before.snapshots(),
          before.manifests());
    }
    return String.format(
        Locale.ROOT,
        "data files %d -> %d (%s -> %s), small %d -> %d, delete files %d -> %d, snapshots %d -> %d, manifests %d -> %d",
        before.dataFiles(),
        after.dataFiles(),
        ByteSizes.format(before.dataBytes()),
        ByteSizes.format(after.dataBytes()),
        before.smallDataFiles(),
        after.smallDataFiles(),
        before.deleteFiles(),
        after.deleteFiles(),
        before.snapshots(),
        after.snapshots(),
        before.manifests(),
        after.manifests());
  }
}
