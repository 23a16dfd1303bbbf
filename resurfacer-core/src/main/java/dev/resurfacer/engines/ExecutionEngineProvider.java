package dev.resurfacer.engines;

import java.util.List;

/**
 * Makes one kind of {@link ExecutionEngine}; found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.resurfacer.engines.ExecutionEngineProvider}), so the CLI and the
 * runner name engines only by the name a user writes.
 */
public interface ExecutionEngineProvider {
  /** The name in {@code --engine} and in {@code resurfacer.yml}, e.g. {@code spark}. */
  String name();

  /** The static declaration: what the engine can do, without connecting to anything. */
  List<EngineCapability> capabilities();

  /** Connects (or prepares to); {@code settings} is the {@code engines.<name>:} section, secrets resolved. */
  ExecutionEngine open(EngineSettings settings);
}
