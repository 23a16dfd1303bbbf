package dev.resurfacer.cli;

import dev.resurfacer.progress.Progress;
import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionPlan;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "compact",
    footer = {"%nExamples:", "  resurfacer compact shop.orders            # preview, like plan", "  resurfacer compact shop.orders --yes", "  resurfacer compact shop.orders --strategy sort --sort-by \"ts DESC\" --yes"}, description = {
    "Bin-pack small files and apply delete files, committing a verified replace snapshot.",
    "Previews (like plan) unless --yes is given."})
final class CompactCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions act;
  @Mixin EngineOptions engineOptions;
  @Mixin CompactionFlags flags;

  @Parameters(paramLabel = "TABLE", description = "namespace.table, or a Delta table (path or delta-catalog name)")
  String tableName;

  CompactCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    var delta = DeltaTargets.find(catalogOptions, ctx, tableName);
    if (delta.isPresent()) {
      if (engineOptions.engine != null && !engineOptions.engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
        return EngineRoute.run(spec, ctx, catalogOptions, outputOptions, engineOptions.engine, tableName, flags.toOperation(), act.yes);
      }
      return DeltaCompactionCli.run(spec, delta.get(), flags, outputOptions, act.yes,
          ProgressDisplay.choose(ctx, outputOptions, false, spec.commandLine().getErr()));
    }
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      return EngineRoute.run(spec, ctx, catalogOptions, outputOptions, engine, tableName, flags.toOperation(), act.yes);
    }
    CompactionOptions options = flags.toOptions();
    PrintWriter out = spec.commandLine().getOut();
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      if (!act.yes) {
        CompactionPlan plan = Compaction.plan(open.table(), options);
        out.println(outputOptions.json() ? Json.write(plan) : PlanCommand.render(plan)
            + "\npreview only: nothing was changed (run with --yes to compact)");
        out.flush();
        return Main.OK;
      }
      PrintWriter err = spec.commandLine().getErr();
      Progress progress = ProgressDisplay.choose(ctx, outputOptions, false, err);
      // on a terminal the bar says what the group lines would
      boolean groupLines = !outputOptions.json() && !(progress instanceof TerminalProgress);
      CompactionResult result = Compaction.execute(open.table(), options, progress, message -> {
        if (groupLines) {
          err.println(message);
          err.flush();
        }
      });
      out.println(outputOptions.json() ? Json.write(result) : render(result));
      out.flush();
      return result.allCommitted() ? Main.OK : Main.FAILED;
    }
  }

  static String render(CompactionResult r) {
    StringBuilder b = new StringBuilder();
    if (r.groups().isEmpty()) {
      return "nothing to compact in " + r.table();
    }
    for (CompactionResult.Group g : r.groups()) {
      b.append(String.format(Locale.ROOT, "group %d %-28s %-8s %-19s %4d files %9s -> %3d files %9s  %d deletes applied%s%n",
          g.index(), g.partition(), g.runner(), g.status().name().toLowerCase(Locale.ROOT), g.inputFiles(),
          ByteSizes.format(g.inputBytes()), g.outputFiles(), ByteSizes.format(g.outputBytes()), g.deleteFiles(),
          g.message() == null ? "" : "  (" + g.message() + ")"));
    }
    b.append(String.format(Locale.ROOT,
        "compacted %s: %d files (%s) -> %d files (%s), %d rows, %d delete files applied, %d dangling delete files left, "
            + "snapshots %s, %.1fs, peak RSS %s, verified: %s",
        r.table(), r.rewrittenFiles(), ByteSizes.format(r.rewrittenBytes()), r.addedFiles(), ByteSizes.format(r.addedBytes()),
        r.rows(), r.deleteFilesApplied(), r.danglingDeleteFiles(), r.snapshotIds(), r.millis() / 1000.0,
        r.peakRssBytes() < 0 ? "unknown" : ByteSizes.format(r.peakRssBytes()), r.verification()));
    return b.toString();
  }
}
