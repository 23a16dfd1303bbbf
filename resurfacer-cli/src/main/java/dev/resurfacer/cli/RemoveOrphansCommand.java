package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.report.Readout;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "remove-orphans",
    footer = {
      "%nExamples:",
      "  resurfacer remove-orphans shop.orders",
      "  resurfacer remove-orphans shop.orders --older-than 7d --quarantine --yes"
    },
    description = {
      "Delete files in the table's storage that no snapshot, ref or metadata file references.",
      "Lists the table location (and write.data.path / write.metadata.path) before reading metadata, keeps",
      "anything younger than --older-than, and refuses (exit 3) when the listing or the metadata cannot be trusted."
    })
final class RemoveOrphansCommand extends EngineVerbCommand {
  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      defaultValue = "3d",
      description =
          "Only files last modified longer ago than this are deleted (default ${DEFAULT-VALUE}); "
              + "size it to the longest write that runs against the table.")
  String olderThan;

  @Option(
      names = "--show",
      paramLabel = "N",
      defaultValue = "20",
      description = "List at most N orphans by name (default ${DEFAULT-VALUE}).")
  int show;

  @Option(
      names = "--quarantine",
      description =
          "Move the orphans under <table location>/.resurfacer-quarantine/<run-id>/ instead of "
              + "deleting them; 'restore-orphans TABLE RUN-ID' puts them back.")
  boolean quarantine;

  @Option(
      names = "--quarantine-retention",
      paramLabel = "AGE",
      defaultValue = "7d",
      description =
          "Runs with --yes delete quarantine runs older than this (default ${DEFAULT-VALUE}).")
  String quarantineRetention;

  @Option(
      names = "--listing",
      paramLabel = "FILE|URI",
      description =
          "Read the files in storage from this listing instead of listing storage: an S3 Inventory report's "
              + "manifest.json (CSV or Parquet data files) or a plain list (LOCATION<TAB>SIZE<TAB>MODIFIED a line, optional first line "
              + "'# taken-at: <ISO-8601>'). --older-than must exceed the listing's age; a referenced file older than the listing "
              + "that it lacks refuses the run.")
  String listing;

  RemoveOrphansCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Duration age = Durations.parse(olderThan);
    Duration keepQuarantine = Durations.parse(quarantineRetention);
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(ExecutionEngines.LOCAL)) {
      if (listing != null) {
        throw new dev.resurfacer.UsageException(
            "--listing is read by the local engine only (engine " + engine
                + " lists storage itself)");
      }
      return EngineRoute.run(
          this, engine, tableName, new RemoveOrphans(age, quarantine, keepQuarantine), act.yes);
    }
    PrintWriter err = spec.commandLine().getErr();
    Readout report = Dispatcher.local(
        TableLookups.lookup(catalogOptions, ctx, tableName),
        new RemoveOrphans(age, quarantine, keepQuarantine, listing),
        act.yes ? Mode.COMMIT : Mode.PREVIEW,
        ProgressDisplay.choose(ctx, outputOptions, false, err),
        show,
        w -> {
          // said as soon as it is known, so a user sees it before anything is deleted
          err.println("warning: " + w);
          err.flush();
        });
    print(report);
    return report.succeeded() ? Main.OK : Main.FAILED;
  }
}
