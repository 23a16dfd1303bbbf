package dev.resurfacer.cli;

import dev.resurfacer.engines.EngineCapability;
import dev.resurfacer.engines.ExecutionEngines;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "engines",
    footer = {"%nExamples:", "  resurfacer engines", "  resurfacer engines --output json"},
    description = {
      "What each execution engine on this build runs, per table format and operation, and why it refuses the rest.",
      "Built from the engines' own declarations (the same source doctor and docs/features.md use); connects to nothing."
    })
final class EnginesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  OutputOptions outputOptions;

  EnginesCommand(CliContext ctx) {}

  @Override
  public Integer call() {
    List<EngineCapability> all = ExecutionEngines.capabilities();
    PrintWriter out = spec.commandLine().getOut();
    if (outputOptions.json()) {
      out.println(Json.write(all));
    } else {
      out.println(String.format(
          Locale.ROOT,
          "%-8s %-8s %-26s %-8s %s",
          "ENGINE",
          "FORMAT",
          "OPERATION",
          "STATUS",
          "NOTE"));
      for (EngineCapability c : all) {
        out.println(String.format(
            Locale.ROOT,
            "%-8s %-8s %-26s %-8s %s",
            c.engine(),
            c.format(),
            c.operation(),
            c.works() ? "works" : "refused",
            c.note()));
      }
    }
    out.flush();
    return Main.OK;
  }
}
