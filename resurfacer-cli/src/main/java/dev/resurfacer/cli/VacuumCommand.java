package dev.resurfacer.cli;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.delta.vacuum.VacuumResult;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "vacuum",
    footer = {"%nExamples:", "  resurfacer vacuum /data/lake/events", "  resurfacer vacuum /data/lake/events --retention 7d --yes"},
    description = {"Delta tables: delete files no version within the retention needs, like Delta's VACUUM.",
        "Lists the table before reading its log; keeps the current version's files and deletion vectors, files removed",
        "within the retention (tombstones read from the JSON commits) and anything written within it. Never follows or",
        "deletes symbolic links; refuses (exit 3) a retention shorter than the table's unless --force-retention."})
final class VacuumCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions actOptions;
  @Mixin EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  @Option(names = "--retention", paramLabel = "AGE",
      description = "Keep removed and unreferenced files this long (default: the table's delta.deletedFileRetentionDuration, else 7d).")
  String retention;

  @Option(names = "--force-retention",
      description = "Accept a retention shorter than the table's (readers of older versions and running writers may fail).")
  boolean forceRetention;

  @Option(names = "--lite",
      description = "Delta's VACUUM LITE: no listing; delete only files that tombstones still in the log removed past the retention (files removed by commits already cleaned from the log are left to a full vacuum).")
  boolean lite;

  @Option(names = "--keep-versions", paramLabel = "V[,V...]", split = ",",
      description = "Never delete a file (data or deletion vector) these table versions reference, so time travel to them keeps working.")
  java.util.List<Long> keepVersions = new java.util.ArrayList<>();

  @Option(names = "--show", paramLabel = "N", defaultValue = "20", description = "List at most N files by name (default ${DEFAULT-VALUE}).")
  int show;

  VacuumCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  record Report(VacuumPlan plan, boolean deleted, Long deletedFiles, Long deletedBytes, java.util.List<String> skipped) {}

  @Override
  public Integer call() {
    if (keepVersions.stream().anyMatch(v -> v < 0)) {
      throw new dev.resurfacer.UsageException("--keep-versions takes table versions (0 or more)");
    }
    VacuumOptions options = new VacuumOptions(Optional.ofNullable(retention).map(Durations::parse), forceRetention, lite, keepVersions);
    DeltaTable table = DeltaTargets.require(catalogOptions, ctx, tableName, "vacuum",
        " (for Iceberg tables use expire and remove-orphans)");
    if (engineOptions.engine != null && !engineOptions.engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      // what the engine cannot take (lite, kept versions) it declares, and the dispatcher refuses with its reason
      return EngineRoute.run(spec, ctx, catalogOptions, outputOptions, engineOptions.engine, tableName,
          new dev.resurfacer.maintain.Vacuum(options.retention().orElse(null), forceRetention, lite, keepVersions), actOptions.yes);
    }
    VacuumPlan plan = DeltaVacuum.plan(table, options, Clock.systemUTC());
    Report report;
    if (actOptions.yes) {
      VacuumResult r = DeltaVacuum.execute(table, plan, options, Clock.systemUTC(),
          ProgressDisplay.choose(ctx, outputOptions, false, spec.commandLine().getErr()));
      report = new Report(plan, true, r.deleted(), r.deletedBytes(), r.skipped());
    } else {
      report = new Report(plan, false, null, null, java.util.List.of());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(report) : render(report, show));
    out.flush();
    return Main.OK;
  }

  static String render(Report r, int show) {
    VacuumPlan p = r.plan();
    StringBuilder b = new StringBuilder();
    b.append("vacuum ").append(p.table()).append(" at version ").append(p.version())
        .append(r.deleted() ? "" : "  (preview: nothing deleted; --yes deletes)").append('\n');
    line(b, "retention", Durations.format(Duration.ofMillis(p.retentionMs())));
    if (p.lite()) {
      line(b, "mode", "lite: nothing listed; only files removed by commits still in the log (files removed by commits"
          + " already cleaned from the log, and files never referenced, are left to a full vacuum)");
    } else {
      line(b, "listed", p.listedFiles() + " files (hidden names and _delta_log excluded)");
    }
    line(b, "referenced", p.referencedFiles() + " files by the current version" + (p.keptVersions().isEmpty() ? "" : ", kept versions "
        + p.keptVersions().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))) + " and unexpired tombstones");
    line(b, "to delete", p.deletions().size() + " files, " + ByteSizes.format(p.bytes()));
    p.deletions().stream().limit(show).forEach(c -> b.append(String.format(Locale.ROOT, "  %8s  %10s  %-17s %s%n",
        Durations.humanAge(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - c.modificationTime()))),
        ByteSizes.format(c.size()), c.reason().name().toLowerCase(Locale.ROOT).replace('_', ' '), c.file().isLocal() ? c.file().path() : c.file())));
    if (p.deletions().size() > show) {
      b.append("  … ").append(p.deletions().size() - show).append(" more (--show N lists more)\n");
    }
    if (!p.symlinksSkipped().isEmpty()) {
      line(b, "symlinks", p.symlinksSkipped().size() + " skipped (never followed, never deleted)");
    }
    if (r.deleted()) {
      line(b, "deleted", r.deletedFiles() + " files, " + ByteSizes.format(r.deletedBytes())
          + (r.skipped().isEmpty() ? "" : "; " + r.skipped().size() + " left in place (changed since the preview)"));
    }
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-14s %s%n", label, value));
  }
}
