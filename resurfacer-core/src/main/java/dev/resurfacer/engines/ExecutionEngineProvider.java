package dev.resurfacer.engines;

/**
 * Makes one kind of {@link ExecutionEngine}; found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.resurfacer.engines.ExecutionEngineProvider}), so the CLI and the
 * runner name engines only by the name a user writes.
 */
public interface ExecutionEngineProvider extends NamedEngine {
  /** Connects (or prepares to); {@code settings} is the {@code engines.<name>:} section, secrets resolved. */
  ExecutionEngine open(EngineSettings settings);
}
