package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.formats.Formats;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Resurfacer;
import dev.resurfacer.policy.Policies;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.HtmlReport;
import dev.resurfacer.report.PrometheusReport;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TextReport;
import dev.resurfacer.storage.StorageFences;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "maintain",
    footer = {
      "%nExamples:",
      "  resurfacer maintain                       # preview every table",
      "  resurfacer maintain --tables 'raw.*' --parallel 4 --yes",
      "  resurfacer maintain --yes --report report.html --metrics-file /var/lib/node_exporter/resurfacer.prom"
    },
    description = {
      "Maintain every table of the configured catalog(s) by its policy in resurfacer.yml, Iceberg and Delta in one",
      "run and one report. Iceberg: compact, remove dangling deletes, rewrite manifests, expire snapshots, remove",
      "orphans. Delta: compact, vacuum, checkpoint, cleanup-log. Previews unless --yes is given.",
      "Exit 0 all good, 1 a table failed (the others still ran), 2 configuration error (nothing ran), 3 a fence refused."
    })
final class MaintainCommand extends CatalogCommand {
  @Mixin
  ActOptions act;

  @Mixin
  EngineOptions engineOptions;

  @Option(
      names = "--tables",
      paramLabel = "GLOB",
      description = {
        "Only tables matching this, e.g. raw.* or *.events (default: all);",
        "a part holding '.', '*' or blanks in backticks or double quotes: 'db.`table:with.special:chars`'."
      })
  String tables;

  @Option(
      names = "--parallel",
      paramLabel = "N",
      description = "Tables maintained at once (default ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int parallel;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "Also write a self-contained HTML report here.")
  String reportFile;

  @Option(
      names = "--metrics-file",
      paramLabel = "FILE",
      description = "Also write Prometheus metrics here (node-exporter textfile collector).")
  String metricsFile;

  @Option(
      names = "--quiet",
      description = "No progress lines on stderr (for cron): only the report, warnings and errors.")
  boolean quiet;

  MaintainCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    if (parallel < 1) {
      throw new UsageException("--parallel must be at least 1 (got " + parallel + ")");
    }
    if (engineOptions.engine != null) {
      ctx.engine(engineOptions.engine);
    }
    if (quiet) {
      // slf4j-simple reads a logger's level when the logger is made; the maintenance loggers are
      // made once the run starts, after this.
      System.setProperty("org.slf4j.simpleLogger.log.dev.resurfacer.maintain", "warn");
    }
    dev.resurfacer.names.NameGlob only =
        tables == null ? null : dev.resurfacer.names.NameGlob.parse(tables, "--tables");
    ResurfacerConfig config = catalogOptions.config(ctx);
    Policies policies = config.policies();
    List<CatalogConfig> catalogs = catalogs(config);
    Progress progress =
        ProgressDisplay.choose(ctx, outputOptions, quiet, spec.commandLine().getErr());
    ProgressDisplay.quietLogsUnder(progress);
    Mode mode = act.yes ? Mode.COMMIT : Mode.PREVIEW;
    Instant started = Instant.now();
    long t0 = System.nanoTime();

    // Everything that can be wrong with the configuration is found before the first table is
    // touched.
    Map<CatalogConfig, MaintenancePlan> plans = new LinkedHashMap<>();
    List<Resurfacer<?>> open = new ArrayList<>();
    Map<String, ExecutionEngine> engines = new LinkedHashMap<>();
    // one neighbour index for the whole run, over every catalog maintained and configured
    StorageFences fences = catalogOptions.fencesOfRun(ctx, config, catalogs);
    try {
      for (CatalogConfig c : catalogs) {
        Resurfacer<?> r = Formats.connect(c, ctx.workingDir())
            .parallel(parallel)
            .fences(fences)
            .progress(progress);
        open.add(r);
        List<Maintain> entries = new ArrayList<>();
        for (String table : r.tables()) {
          if (only == null || only.matches(table)) {
            // a policy names the operations of both formats; each table gets its own format's
            Maintain m = Maintain.fromPolicy(table, policies.effective(table).policy())
                .retainOnly(r::supports);
            if (engineOptions.engine != null) {
              m = m.engine(engineOptions.engine);
            }
            String name = m.engine();
            // a setting the engine has no argument for stops the run here, before the engine is
            // reached
            for (dev.resurfacer.maintain.Operation o : m.operations()) {
              ExecutionEngines.refusedSetting(
                      name, ctx.engine(name).capabilities(), r.format().format().id(), o)
                  .ifPresent(why -> {
                    throw new UsageException(table + ": " + why);
                  });
            }
            if (!engines.containsKey(name)) {
              engines.put(name, ctx.engine(name).open(config.engine(name)));
            }
            entries.add(m);
          }
        }
        plans.put(c, new MaintenancePlan(entries));
      }
      List<RunReport> parts = new ArrayList<>();
      int i = 0;
      for (MaintenancePlan plan : plans.values()) {
        parts.add(open.get(i++).executionEngines(List.copyOf(engines.values())).run(plan, mode));
      }
      RunReport report = RunReport.merge(
          mode.name().toLowerCase(java.util.Locale.ROOT),
          started.toString(),
          (System.nanoTime() - t0) / 1_000_000,
          parts);
      // the run has happened by now: a report that cannot be written is reported, not a usage error
      boolean written = true;
      if (reportFile != null) {
        written &= write(ctx.workingDir().resolve(reportFile), HtmlReport.render(report));
      }
      if (metricsFile != null) {
        written &= write(ctx.workingDir().resolve(metricsFile), PrometheusReport.render(report));
      }
      PrintWriter out = spec.commandLine().getOut();
      if (report.tables().isEmpty()) {
        out.println(
            outputOptions.json()
                ? Json.write(report)
                : "no tables matched" + (tables == null ? "" : " " + tables));
      } else {
        out.println(outputOptions.json() ? Json.write(report) : TextReport.render(report));
      }
      out.flush();
      return written ? report.exitCode() : Math.max(report.exitCode(), Main.FAILED);
    } finally {
      open.forEach(Resurfacer::close);
      engines.values().forEach(ExecutionEngine::close);
    }
  }

  /** Ad-hoc flags or --catalog name one catalog; otherwise every catalog of the file (or the embedded default). */
  private List<CatalogConfig> catalogs(ResurfacerConfig config) {
    if (catalogOptions.catalogUri != null
        || catalogOptions.catalog != null
        || config.catalogs().isEmpty()
        || ctx.env().containsKey("RESURFACER_CATALOG_URI")
        || ctx.env().containsKey("RESURFACER_CATALOG")) {
      return List.of(catalogOptions.resolve(ctx));
    }
    List<CatalogConfig> all = new ArrayList<>(config.catalogs().values());
    if (catalogOptions.warehouse != null) {
      all.replaceAll(c -> c.withWarehouseFlag(catalogOptions.warehouse));
    }
    return all;
  }

  /** Written beside the target and renamed over it, so a reader (or a scrape) never sees half a file. */
  private boolean write(Path target, String text) {
    try {
      Path parent = target.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Path tmp = Files.createTempFile(parent, ".resurfacer-", ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (IOException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("error: cannot write " + target + ": " + e.getMessage());
      err.flush();
      return false;
    }
  }
}
