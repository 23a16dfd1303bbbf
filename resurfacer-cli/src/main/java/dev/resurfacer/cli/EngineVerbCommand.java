package dev.resurfacer.cli;

import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.maintain.Operation;
import picocli.CommandLine.Mixin;

/** An {@link IcebergVerbCommand} that {@code --engine} may send to another engine. */
abstract class EngineVerbCommand extends IcebergVerbCommand {
  @Mixin
  EngineOptions engineOptions;

  EngineVerbCommand(CliContext ctx) {
    super(ctx);
  }

  /**
   * {@code operation} on this verb's table on the engine {@code --engine} or the table's policy names
   * ({@link EngineRoute} for one other than local, else {@link #runLocally}).
   */
  final int runOnResolvedEngine(Operation operation) {
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(ExecutionEngines.LOCAL)) {
      return EngineRoute.run(this, engine, tableName, operation, act.yes);
    }
    return runLocally(operation);
  }
}
