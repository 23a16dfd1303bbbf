package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.report.Readout;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Locale;

/** What {@code remove-orphans} on the local engine shows: the {@link OrphanReport} as JSON, and its text. */
public record OrphanReadout(OrphanReport report) implements Readout {
  @Override
  public Object json() {
    return report;
  }

  /** A run that acted but could not delete every orphan exits non-zero. */
  @Override
  public boolean succeeded() {
    return report.removed().failedDeletes() == 0;
  }

  @Override
  public String render() {
    OrphanReport r = report;
    StringBuilder b = new StringBuilder();
    b.append("remove-orphans ")
        .append(r.table())
        .append(r.deleted() ? "" : "  (preview: nothing deleted; --yes deletes)")
        .append('\n');
    line(b, "scope", String.join(", ", r.guard().scope()));
    line(
        b,
        "listed",
        r.census().listed().files() + " files, "
            + ByteSizes.format(r.census().listed().bytes())
            + (r.listing() == null
                ? ""
                : " from " + r.listing().source() + " (taken "
                    + java.time.Instant.ofEpochMilli(r.listing().takenAtMillis()) + "; "
                    + r.listing().entriesOutsideScope() + " entries outside the scope ignored)"));
    line(
        b,
        "kept",
        r.census().keptReachable().files() + " referenced ("
            + ByteSizes.format(r.census().keptReachable().bytes()) + "), "
            + r.census().keptTooYoung().files() + " unreferenced but younger than "
            + r.guard().olderThan() + " ("
            + ByteSizes.format(r.census().keptTooYoung().bytes()) + ")");
    line(
        b,
        "orphans",
        r.census().orphans().files() + " files, "
            + ByteSizes.format(r.census().orphans().bytes()));
    for (OrphanReport.OrphanFile f : r.orphans()) {
      b.append(String.format(
          Locale.ROOT,
          "  %8s  %10s  %s%n",
          Durations.humanAge(Duration.ofMillis(f.ageMillis())),
          ByteSizes.format(f.sizeBytes()),
          f.location()));
    }
    if (r.orphansTruncated()) {
      b.append("  … ")
          .append(r.census().orphans().files() - r.orphans().size())
          .append(" more (--show N lists more)\n");
    }
    if (r.removed().quarantineRun() != null) {
      line(
          b,
          "quarantined",
          r.removed().quarantined().files() + " files, "
              + ByteSizes.format(r.removed().quarantined().bytes()) + " as run "
              + r.removed().quarantineRun() + " (restore-orphans " + r.table() + " "
              + r.removed().quarantineRun() + " puts them back)");
    } else if (r.deleted()) {
      line(
          b,
          "deleted",
          r.removed().deleted().files() + " files, "
              + ByteSizes.format(r.removed().deleted().bytes())
              + (r.removed().failedDeletes() > 0
                  ? "; " + r.removed().failedDeletes() + " could not be deleted"
                  : ""));
    }
    if (r.removed().purgedQuarantine().files() > 0) {
      line(
          b,
          "purged",
          r.removed().purgedQuarantine().files() + " quarantined files past their retention, "
              + ByteSizes.format(r.removed().purgedQuarantine().bytes()));
    }
    if (r.fenced().linksSkipped() > 0 || r.fenced().protectedSkipped() > 0) {
      line(
          b,
          "not listed",
          r.fenced().linksSkipped() + " symbolic link(s) (never followed nor deleted), "
              + r.fenced().protectedSkipped() + " catalog or configuration file(s)");
    }
    StringBuilder refs = new StringBuilder();
    r.references()
        .referenced()
        .forEach((k, v) ->
            refs.append(refs.isEmpty() ? "" : ", ").append(k).append(' ').append(v));
    line(
        b,
        "referenced",
        refs + "; " + r.references().referencedOutsideScope() + " outside scope (never deleted)");
    line(
        b,
        "other tables",
        r.fenced().otherTablesChecked()
            + " checked, none lies in or references this table's storage");
    for (String w : r.warnings()) {
      line(b, "warning", w);
    }
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-14s %s%n", label, value));
  }
}
