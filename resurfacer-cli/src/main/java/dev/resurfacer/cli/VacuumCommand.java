package dev.resurfacer.cli;

import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.units.Durations;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "vacuum",
    footer = {
      "%nExamples:",
      "  resurfacer vacuum /data/lake/events",
      "  resurfacer vacuum /data/lake/events --retention 7d --yes"
    },
    description = {
      "Delta tables: delete files no version within the retention needs, like Delta's VACUUM.",
      "Lists the table before reading its log; keeps the current version's files and deletion vectors, files removed",
      "within the retention (tombstones read from the JSON commits) and anything written within it. Never follows or",
      "deletes symbolic links; refuses (exit 3) a retention shorter than the table's unless --force-retention."
    })
final class VacuumCommand extends DeltaVerbCommand {
  @Mixin
  EngineOptions engineOptions;

  @Option(
      names = "--retention",
      paramLabel = "AGE",
      description =
          "Keep removed and unreferenced files this long (default: the table's delta.deletedFileRetentionDuration, else 7d).")
  String retention;

  @Option(
      names = "--force-retention",
      description =
          "Accept a retention shorter than the table's (readers of older versions and running writers may fail).")
  boolean forceRetention;

  @Option(
      names = "--lite",
      description =
          "Delta's VACUUM LITE: no listing; delete only files that tombstones still in the log removed past the retention (files removed by commits already cleaned from the log are left to a full vacuum).")
  boolean lite;

  @Option(
      names = "--keep-versions",
      paramLabel = "V[,V...]",
      split = ",",
      description =
          "Never delete a file (data or deletion vector) these table versions reference, so time travel to them keeps working.")
  java.util.List<Long> keepVersions = new java.util.ArrayList<>();

  @Option(
      names = "--show",
      paramLabel = "N",
      defaultValue = "20",
      description = "List at most N files by name (default ${DEFAULT-VALUE}).")
  int show;

  VacuumCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    if (keepVersions.stream().anyMatch(v -> v < 0)) {
      throw new dev.resurfacer.UsageException("--keep-versions takes table versions (0 or more)");
    }
    Vacuum vacuum = new Vacuum(
        Optional.ofNullable(retention).map(Durations::parse).orElse(null),
        forceRetention,
        lite,
        keepVersions);
    if (engineOptions.engine != null
        && !engineOptions.engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      // what the engine cannot take (lite, kept versions) it declares, and the dispatcher refuses
      // with its reason
      return EngineRoute.runOnDeclaredFormat(
          this, engineOptions.engine, tableName, vacuum, act.yes);
    }
    return runLocally(vacuum, progress(act.yes), show);
  }
}
