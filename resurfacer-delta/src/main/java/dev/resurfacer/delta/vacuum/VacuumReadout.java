package dev.resurfacer.delta.vacuum;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** What {@code vacuum} on the local engine shows: the plan, and with {@code --yes} what was deleted. */
public final class VacuumReadout implements Readout {
  /**
   * What {@code --output json} writes.
   *
   * @param deletedFiles null in a preview
   */
  public record Report(
      VacuumPlan plan,
      boolean deleted,
      Long deletedFiles,
      Long deletedBytes,
      List<String> skipped) {}

  private final Report report;
  private final int show;

  private VacuumReadout(Report report, int show) {
    this.report = report;
    this.show = show;
  }

  /** Plans the vacuum and, in {@link Mode#COMMIT}, deletes exactly what the plan lists (still unchanged). */
  public static VacuumReadout run(
      DeltaTable table, Vacuum op, Mode mode, Progress progress, int show, Clock clock) {
    VacuumOptions options = VacuumOptions.of(op);
    VacuumPlan plan = DeltaVacuum.plan(table, options, clock);
    if (mode == Mode.COMMIT) {
      VacuumResult r = DeltaVacuum.execute(table, plan, options, clock, progress);
      return new VacuumReadout(
          new Report(plan, true, r.deleted(), r.deletedBytes(), r.skipped()), show);
    }
    return new VacuumReadout(new Report(plan, false, null, null, List.of()), show);
  }

  @Override
  public Object json() {
    return report;
  }

  @Override
  public String render() {
    Report r = report;
    VacuumPlan p = r.plan();
    StringBuilder b = new StringBuilder();
    b.append("vacuum ")
        .append(p.table())
        .append(" at version ")
        .append(p.version())
        .append(r.deleted() ? "" : "  (preview: nothing deleted; --yes deletes)")
        .append('\n');
    line(b, "retention", Durations.format(Duration.ofMillis(p.retentionMs())));
    if (p.lite()) {
      line(
          b,
          "mode",
          "lite: nothing listed; only files removed by commits still in the log (files removed by commits"
              + " already cleaned from the log, and files never referenced, are left to a full vacuum)");
    } else {
      line(b, "listed", p.listedFiles() + " files (hidden names and _delta_log excluded)");
    }
    line(
        b,
        "referenced",
        p.referencedFiles() + " files by the current version"
            + (p.keptVersions().isEmpty()
                ? ""
                : ", kept versions "
                    + p.keptVersions().stream()
                        .map(String::valueOf)
                        .collect(java.util.stream.Collectors.joining(",")))
            + " and unexpired tombstones");
    line(b, "to delete", p.deletions().size() + " files, " + ByteSizes.format(p.bytes()));
    p.deletions().stream()
        .limit(show)
        .forEach(c -> b.append(String.format(
            Locale.ROOT,
            "  %8s  %10s  %-17s %s%n",
            Durations.humanAge(
                Duration.ofMillis(Math.max(0, System.currentTimeMillis() - c.modificationTime()))),
            ByteSizes.format(c.size()),
            c.reason().name().toLowerCase(Locale.ROOT).replace('_', ' '),
            c.file().isLocal() ? c.file().path() : c.file())));
    if (p.deletions().size() > show) {
      b.append("  … ").append(p.deletions().size() - show).append(" more (--show N lists more)\n");
    }
    if (!p.symlinksSkipped().isEmpty()) {
      line(b, "symlinks", p.symlinksSkipped().size() + " skipped (never followed, never deleted)");
    }
    if (r.deleted()) {
      line(
          b,
          "deleted",
          r.deletedFiles() + " files, " + ByteSizes.format(r.deletedBytes())
              + (r.skipped().isEmpty()
                  ? ""
                  : "; " + r.skipped().size() + " left in place (changed since the preview)"));
    }
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-14s %s%n", label, value));
  }
}
