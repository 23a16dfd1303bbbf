package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "compact",
    footer = {
      "%nExamples:",
      "  resurfacer compact shop.orders            # preview, like plan",
      "  resurfacer compact shop.orders --yes",
      "  resurfacer compact shop.orders --strategy sort --sort-by \"ts DESC\" --yes"
    },
    description = {
      "Bin-pack small files and apply delete files, committing a verified replace snapshot.",
      "Previews (like plan) unless --yes is given."
    })
final class CompactCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  OutputOptions outputOptions;

  @Mixin
  ActOptions act;

  @Mixin
  EngineOptions engineOptions;

  @Mixin
  CompactionFlags flags;

  @Parameters(
      paramLabel = "TABLE",
      description = "namespace.table, or a Delta table (path or delta-catalog name)")
  String tableName;

  CompactCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(ExecutionEngines.LOCAL)) {
      return EngineRoute.run(
          spec,
          ctx,
          catalogOptions,
          outputOptions,
          engine,
          tableName,
          flags.toOperation(spec),
          act.yes);
    }
    PrintWriter err = spec.commandLine().getErr();
    Progress progress =
        act.yes ? ProgressDisplay.choose(ctx, outputOptions, false, err) : Progress.NONE;
    // on a terminal the bar says what the group lines would
    boolean groupLines = !outputOptions.json() && !ProgressDisplay.isBar(progress);
    Readout result = Dispatcher.compact(
        TableLookups.lookup(catalogOptions, ctx, tableName),
        flags.settings(spec),
        act.yes ? Mode.COMMIT : Mode.PREVIEW,
        progress,
        message -> {
          if (groupLines) {
            err.println(message);
            err.flush();
          }
        });
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(result.json()) : result.render());
    out.flush();
    return result.succeeded() ? Main.OK : Main.FAILED;
  }
}
