package dev.resurfacer.cli;

import dev.resurfacer.maintain.CleanupLog;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.units.Durations;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "cleanup-log",
    footer = {
      "%nExamples:",
      "  resurfacer cleanup-log /data/lake/events",
      "  resurfacer cleanup-log /data/lake/events --yes"
    },
    description = {
      "Delta tables: delete _delta_log entries older than delta.logRetentionDuration (30 days) that precede",
      "a complete checkpoint, so every version from that checkpoint on stays readable."
    })
final class CleanupLogCommand extends DeltaVerbCommand {
  @Option(
      names = "--retention",
      paramLabel = "AGE",
      description = "Log retention (default: the table's delta.logRetentionDuration, else 30d).")
  String retention;

  CleanupLogCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    CleanupLog cleanup =
        new CleanupLog(Optional.ofNullable(retention).map(Durations::parse).orElse(null));
    return runLocally(cleanup, Progress.NONE, 0);
  }
}
