package dev.resurfacer.cli;

import dev.resurfacer.delta.log.LogCleanup;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "cleanup-log",
    footer = {"%nExamples:", "  resurfacer cleanup-log /data/lake/events", "  resurfacer cleanup-log /data/lake/events --yes"},
    description = {"Delta tables: delete _delta_log entries older than delta.logRetentionDuration (30 days) that precede",
        "a complete checkpoint, so every version from that checkpoint on stays readable."})
final class CleanupLogCommand extends TableCommand {
  @Mixin ActOptions actOptions;

  @Parameters(paramLabel = "TABLE", description = "a Delta table's path, or a name a delta catalog maps")
  String tableName;

  @Option(names = "--retention", paramLabel = "AGE",
      description = "Log retention (default: the table's delta.logRetentionDuration, else 30d).")
  String retention;

  CleanupLogCommand(CliContext ctx) {
    super(ctx);
  }

  record Report(LogCleanup.Plan plan, boolean deleted, long deletedFiles, long deletedBytes) {}

  @Override
  public Integer call() {
    Optional<Duration> override = Optional.ofNullable(retention).map(Durations::parse);
    DeltaTable table = DeltaTargets.require(catalogOptions, ctx, tableName, "cleanup-log", "");
    LogCleanup.Plan plan = LogCleanup.plan(table, override, Clock.systemUTC());
    Report report = new Report(plan, false, 0, 0);
    if (actOptions.yes) {
      LogCleanup.Result r = LogCleanup.execute(table, plan);
      report = new Report(plan, true, r.deleted(), r.deletedBytes());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (outputOptions.json()) {
      out.println(Json.write(new JsonReport(plan.table(), plan.version(), plan.retentionMs(), plan.keepFromVersion(),
          plan.deletions().stream().map(f -> f.path().toString()).toList(), report.deleted(), report.deletedFiles(),
          report.deletedBytes())));
    } else {
      StringBuilder b = new StringBuilder("cleanup-log " + plan.table() + " at version " + plan.version()
          + (actOptions.yes ? "" : "  (preview: nothing deleted; --yes deletes)") + "\n");
      b.append("retention      ").append(Durations.format(Duration.ofMillis(plan.retentionMs()))).append('\n');
      b.append("to delete      ").append(plan.deletions().size()).append(" log files, ").append(ByteSizes.format(plan.bytes()))
          .append(plan.keepFromVersion() < 0 ? " (no checkpoint older than the retention has only old commits before it)"
              : " (versions before the checkpoint of version " + plan.keepFromVersion() + ")").append('\n');
      for (LogFile f : plan.deletions().stream().limit(10).toList()) {
        b.append("  ").append(dev.resurfacer.delta.table.TableStorage.name(f.path())).append('\n');
      }
      if (report.deleted()) {
        b.append("deleted        ").append(report.deletedFiles()).append(" files, ").append(ByteSizes.format(report.deletedBytes()));
      }
      out.println(b.toString().stripTrailing());
    }
    out.flush();
    return Main.OK;
  }

  record JsonReport(String table, long version, long retentionMs, long keepFromVersion, java.util.List<String> deletions,
      boolean deleted, long deletedFiles, long deletedBytes) {}
}
