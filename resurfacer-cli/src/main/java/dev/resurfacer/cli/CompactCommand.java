package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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
final class CompactCommand extends CompactionCommand {
  @Mixin
  ActOptions act;

  @Mixin
  EngineOptions engineOptions;

  CompactCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(ExecutionEngines.LOCAL)) {
      return EngineRoute.run(this, engine, tableName, flags.toOperation(spec), act.yes);
    }
    PrintWriter err = spec.commandLine().getErr();
    Progress progress = progress(act.yes);
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
    print(result);
    return result.succeeded() ? Main.OK : Main.FAILED;
  }
}
