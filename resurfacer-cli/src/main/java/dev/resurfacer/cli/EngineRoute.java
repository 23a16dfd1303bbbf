package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.report.Outcome;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One verb on an engine other than local, for a table of either format: the verb's flags become the same
 * {@link Operation} record a policy would build, and {@link Dispatcher} resolves the table, checks what the
 * engine declares and runs its executor; this class only renders the step.
 */
final class EngineRoute {
  private EngineRoute() {}

  static int run(
      CommandSpec spec,
      CliContext ctx,
      CatalogOptions catalogOptions,
      OutputOptions output,
      String engineName,
      String tableName,
      Operation operation,
      boolean yes) {
    return render(
        spec,
        output,
        engineName,
        operation,
        yes,
        Dispatcher.onEngine(
            TableLookups.lookup(catalogOptions, ctx, tableName),
            ctx.engine(engineName),
            () -> EngineOptions.config(ctx, catalogOptions).engine(engineName),
            operation,
            yes ? Mode.COMMIT : Mode.PREVIEW));
  }

  /** As {@link #run}, for a verb declared for some formats only: a table of another format is refused first ({@link Dispatcher#onDeclaredFormat}). */
  static int runOnDeclaredFormat(
      CommandSpec spec,
      CliContext ctx,
      CatalogOptions catalogOptions,
      OutputOptions output,
      String engineName,
      String tableName,
      Operation operation,
      boolean yes) {
    return render(
        spec,
        output,
        engineName,
        operation,
        yes,
        Dispatcher.onDeclaredFormat(
            TableLookups.lookup(catalogOptions, ctx, tableName),
            () -> ctx.engine(engineName),
            () -> EngineOptions.config(ctx, catalogOptions).engine(engineName),
            operation,
            yes ? Mode.COMMIT : Mode.PREVIEW));
  }

  private static int render(
      CommandSpec spec,
      OutputOptions output,
      String engineName,
      Operation operation,
      boolean yes,
      Dispatcher.Outcome ran) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json()) {
      out.println(Json.write(Map.of(
          "table",
          ran.table(),
          "engine",
          engineName,
          "operation",
          operation.name(),
          "outcome",
          ran.step().outcome().json(),
          "message",
          ran.step().message(),
          "metrics",
          ran.step().metrics())));
    } else {
      out.println(ran.table() + ": " + operation.name() + " on " + engineName + ": "
          + ran.step().message());
      if (!yes) {
        out.println("preview only: nothing was changed (run with --yes to act)");
      }
    }
    out.flush();
    Outcome outcome = ran.step().outcome();
    return outcome == Outcome.FAILED
        ? Main.FAILED
        : outcome == Outcome.REFUSED ? Main.REFUSED : Main.OK;
  }
}
