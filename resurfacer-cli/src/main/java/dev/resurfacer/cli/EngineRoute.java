package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.report.Outcome;
import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One verb on an engine other than local, for a table of either format: the verb's flags become the same
 * {@link Operation} record a policy would build, and {@link Dispatcher} resolves the table, checks what the
 * engine declares and runs its executor; this class only renders the step.
 */
final class EngineRoute {
  private EngineRoute() {}

  /** {@code operation} on the named table on engine {@code engineName}, for {@code command}'s flags. */
  static int run(
      TableCommand command, String engineName, String tableName, Operation operation, boolean yes) {
    return route(command, engineName, tableName, operation, yes, false);
  }

  /** As {@link #run}, for a verb declared for some formats only: a table of another format is refused first ({@link Dispatcher#onDeclaredFormat}). */
  static int runOnDeclaredFormat(
      TableCommand command, String engineName, String tableName, Operation operation, boolean yes) {
    return route(command, engineName, tableName, operation, yes, true);
  }

  private static int route(
      TableCommand command,
      String engineName,
      String tableName,
      Operation operation,
      boolean yes,
      boolean declaredFormatFirst) {
    CliContext ctx = command.ctx;
    TableLookup lookup = TableLookups.lookup(command.catalogOptions, ctx, tableName);
    Supplier<EngineSettings> settings = () -> command.catalogOptions.config(ctx).engine(engineName);
    Mode mode = yes ? Mode.COMMIT : Mode.PREVIEW;
    Dispatcher.Outcome ran = declaredFormatFirst
        ? Dispatcher.onDeclaredFormat(
            lookup, () -> ctx.engine(engineName), settings, operation, mode)
        : Dispatcher.onEngine(lookup, ctx.engine(engineName), settings, operation, mode);
    return render(command.spec, command.outputOptions, engineName, operation, yes, ran);
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
