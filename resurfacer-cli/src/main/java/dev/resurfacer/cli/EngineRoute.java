package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.Outcome;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One verb on an engine other than local, for an Iceberg or a Delta table: the verb's flags become the same {@link Operation} record
 * a policy would build, and the engine's executor for it runs on the opened table. An operation the
 * engine does not declare, or a setting it has no argument for, is refused with the engine's own reason before
 * anything is touched.
 */
final class EngineRoute {
  private EngineRoute() {}

  static int run(CommandSpec spec, CliContext ctx, CatalogOptions catalogOptions, OutputOptions output, String engineName,
      String tableName, Operation operation, boolean yes) {
    try (ExecutionEngine engine = open(ctx, catalogOptions, engineName, "iceberg", operation)) {
      OperationExecutor<?, IcebergTable> executor = executor(engine, engineName, "iceberg", IcebergTable.class, operation);
      try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
        // the same fences a local run would apply: every configured catalog's tables, the catalog's own files
        IcebergTable table = new IcebergTable(open.catalog(), Catalogs.parseIdentifier(tableName), open.table(), tableName,
            catalogOptions.orphanFences(ctx, open.config()));
        return print(spec, output, engineName, tableName, operation, yes, execute(executor, operation, table, yes ? Mode.COMMIT : Mode.PREVIEW));
      }
    }
  }

  /** As {@link #run} for a Delta table already found by name. */
  static int runDelta(CommandSpec spec, CliContext ctx, CatalogOptions catalogOptions, OutputOptions output, String engineName,
      DeltaTable table, Operation operation, boolean yes) {
    try (ExecutionEngine engine = open(ctx, catalogOptions, engineName, "delta", operation)) {
      OperationExecutor<?, DeltaTable> executor = executor(engine, engineName, "delta", DeltaTable.class, operation);
      return print(spec, output, engineName, table.name(), operation, yes, execute(executor, operation, table, yes ? Mode.COMMIT : Mode.PREVIEW));
    }
  }

  private static ExecutionEngine open(CliContext ctx, CatalogOptions catalogOptions, String engineName, String format, Operation operation) {
    ExecutionEngineProvider provider = ctx.engine(engineName);
    // what the engine declares refused is refused before connecting to it
    if (ExecutionEngines.declaresRefused(provider.capabilities(), format, operation.name())) {
      throw new UsageException(ExecutionEngines.refusal(engineName, provider.capabilities(), format, operation.name()));
    }
    ExecutionEngines.refusedSetting(engineName, provider.capabilities(), format, operation).ifPresent(why -> {
      throw new UsageException(why);
    });
    return provider.open(EngineOptions.config(ctx, catalogOptions).engine(engineName));
  }

  private static <T> OperationExecutor<?, T> executor(ExecutionEngine engine, String engineName, String format, Class<T> handle,
      Operation operation) {
    return engine.executors(format, handle).stream()
        .filter(x -> x.operationType() == operation.getClass()).findFirst()
        .orElseThrow(() -> new UsageException(ExecutionEngines.refusal(engineName, engine.capabilities(), format, operation.name())));
  }

  private static int print(CommandSpec spec, OutputOptions output, String engineName, String tableName, Operation operation, boolean yes,
      Step step) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json()) {
      out.println(Json.write(Map.of("table", tableName, "engine", engineName, "operation", operation.name(),
          "outcome", step.outcome().json(), "message", step.message(), "metrics", step.metrics())));
    } else {
      out.println(tableName + ": " + operation.name() + " on " + engineName + ": " + step.message());
      if (!yes) {
        out.println("preview only: nothing was changed (run with --yes to act)");
      }
    }
    out.flush();
    return step.outcome() == Outcome.FAILED ? Main.FAILED : step.outcome() == Outcome.REFUSED ? Main.REFUSED : Main.OK;
  }

  @SuppressWarnings("unchecked")
  private static <T> Step execute(OperationExecutor<?, T> executor, Operation operation, T table, Mode mode) {
    try {
      return ((OperationExecutor<Operation, T>) executor).execute(operation, table, mode);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
