package dev.resurfacer.engines;

import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;

/**
 * This JVM: DuckDB and the formats' own libraries. It supplies no executors of its own — each
 * format's built-in executors are the local engine — so its declarations ({@link EngineDeclarations}) list those operations.
 */
public final class LocalEngine implements ExecutionEngine, ExecutionEngineProvider {
  public static final String NAME = EngineDeclarations.LOCAL;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ExecutionEngine open(EngineSettings settings) {
    if (!settings.values().isEmpty()) {
      settings.rejectUnknown(java.util.Set.of(), java.util.Set.of());
    }
    return this;
  }

  @Override
  public <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType) {
    return List.of();
  }
}
