package dev.resurfacer.cli;

import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "remove-orphans",
    footer = {"%nExamples:", "  resurfacer remove-orphans shop.orders", "  resurfacer remove-orphans shop.orders --older-than 7d --quarantine --yes"},
    description = {"Delete files in the table's storage that no snapshot, ref or metadata file references.",
        "Lists the table location (and write.data.path / write.metadata.path) before reading metadata, keeps",
        "anything younger than --older-than, and refuses (exit 3) when the listing or the metadata cannot be trusted."})
final class RemoveOrphansCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions actOptions;
  @Mixin EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(names = "--older-than", paramLabel = "AGE", defaultValue = "3d",
      description = "Only files last modified longer ago than this are deleted (default ${DEFAULT-VALUE}); "
          + "size it to the longest write that runs against the table.")
  String olderThan;

  @Option(names = "--show", paramLabel = "N", defaultValue = "20", description = "List at most N orphans by name (default ${DEFAULT-VALUE}).")
  int show;

  @Option(names = "--quarantine", description = "Move the orphans under <table location>/.resurfacer-quarantine/<run-id>/ instead of "
      + "deleting them; 'restore-orphans TABLE RUN-ID' puts them back.")
  boolean quarantine;

  @Option(names = "--quarantine-retention", paramLabel = "AGE", defaultValue = "7d",
      description = "Runs with --yes delete quarantine runs older than this (default ${DEFAULT-VALUE}).")
  String quarantineRetention;

  @Option(names = "--listing", paramLabel = "FILE|URI",
      description = "Read the files in storage from this listing instead of listing storage: an S3 Inventory report's "
          + "manifest.json (CSV or Parquet data files) or a plain list (LOCATION<TAB>SIZE<TAB>MODIFIED a line, optional first line "
          + "'# taken-at: <ISO-8601>'). --older-than must exceed the listing's age; a referenced file older than the listing "
          + "that it lacks refuses the run.")
  String listing;

  RemoveOrphansCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Duration age = Durations.parse(olderThan);
    Duration keepQuarantine = Durations.parse(quarantineRetention);
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      if (listing != null) {
        throw new dev.resurfacer.UsageException("--listing is read by the local engine only (engine " + engine + " lists storage itself)");
      }
      return EngineRoute.run(spec, ctx, catalogOptions, outputOptions, engine, tableName, new dev.resurfacer.maintain.RemoveOrphans(age, quarantine, keepQuarantine), actOptions.yes);
    }
    PrintWriter err = spec.commandLine().getErr();
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      OrphanRemoval removal = OrphanRemoval.of(open.catalog(), Catalogs.parseIdentifier(tableName), open.table())
          .olderThan(age)
          .show(show)
          .quarantine(quarantine)
          .quarantineRetention(keepQuarantine)
          .onWarning(w -> {
            // said as soon as it is known, so a user sees it before anything is deleted
            err.println("warning: " + w);
            err.flush();
          })
          .progress(ProgressDisplay.choose(ctx, outputOptions, false, err));
      removal = removal.fences(catalogOptions.fences(ctx, open.config()).rereadEachRun());
      if (listing != null) {
        removal = removal.listing(dev.resurfacer.iceberg.orphans.Inventory.open(listing, open.table().io()));
      }
      OrphanReport report = actOptions.yes ? removal.execute() : removal.plan();
      PrintWriter out = spec.commandLine().getOut();
      out.println(outputOptions.json() ? Json.write(report) : render(report));
      out.flush();
      return report.removed().failedDeletes() > 0 ? Main.FAILED : Main.OK;
    }
  }

  static String render(OrphanReport r) {
    StringBuilder b = new StringBuilder();
    b.append("remove-orphans ").append(r.table()).append(r.deleted() ? "" : "  (preview: nothing deleted; --yes deletes)")
        .append('\n');
    line(b, "scope", String.join(", ", r.guard().scope()));
    line(b, "listed", r.census().listed().files() + " files, " + ByteSizes.format(r.census().listed().bytes()) + (r.listing() == null ? ""
        : " from " + r.listing().source() + " (taken " + java.time.Instant.ofEpochMilli(r.listing().takenAtMillis()) + "; "
            + r.listing().entriesOutsideScope() + " entries outside the scope ignored)"));
    line(b, "kept", r.census().keptReachable().files() + " referenced (" + ByteSizes.format(r.census().keptReachable().bytes()) + "), "
        + r.census().keptTooYoung().files() + " unreferenced but younger than " + r.guard().olderThan() + " ("
        + ByteSizes.format(r.census().keptTooYoung().bytes()) + ")");
    line(b, "orphans", r.census().orphans().files() + " files, " + ByteSizes.format(r.census().orphans().bytes()));
    for (OrphanReport.OrphanFile f : r.orphans()) {
      b.append(String.format(Locale.ROOT, "  %8s  %10s  %s%n", Durations.humanAge(Duration.ofMillis(f.ageMillis())),
          ByteSizes.format(f.sizeBytes()), f.location()));
    }
    if (r.orphansTruncated()) {
      b.append("  … ").append(r.census().orphans().files() - r.orphans().size()).append(" more (--show N lists more)\n");
    }
    if (r.removed().quarantineRun() != null) {
      line(b, "quarantined", r.removed().quarantined().files() + " files, " + ByteSizes.format(r.removed().quarantined().bytes()) + " as run "
          + r.removed().quarantineRun() + " (restore-orphans " + r.table() + " " + r.removed().quarantineRun() + " puts them back)");
    } else if (r.deleted()) {
      line(b, "deleted", r.removed().deleted().files() + " files, " + ByteSizes.format(r.removed().deleted().bytes())
          + (r.removed().failedDeletes() > 0 ? "; " + r.removed().failedDeletes() + " could not be deleted" : ""));
    }
    if (r.removed().purgedQuarantine().files() > 0) {
      line(b, "purged", r.removed().purgedQuarantine().files() + " quarantined files past their retention, "
          + ByteSizes.format(r.removed().purgedQuarantine().bytes()));
    }
    if (r.fenced().linksSkipped() > 0 || r.fenced().protectedSkipped() > 0) {
      line(b, "not listed", r.fenced().linksSkipped() + " symbolic link(s) (never followed nor deleted), " + r.fenced().protectedSkipped()
          + " catalog or configuration file(s)");
    }
    StringBuilder refs = new StringBuilder();
    r.references().referenced().forEach((k, v) -> refs.append(refs.isEmpty() ? "" : ", ").append(k).append(' ').append(v));
    line(b, "referenced", refs + "; " + r.references().referencedOutsideScope() + " outside scope (never deleted)");
    line(b, "other tables", r.fenced().otherTablesChecked() + " checked, none lies in or references this table's storage");
    for (String w : r.warnings()) {
      line(b, "warning", w);
    }
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-14s %s%n", label, value));
  }
}
