package dev.resurfacer.engines;

import java.util.List;

/** What an engine and its provider both are: a name a user writes, and what that name declares it runs. */
public interface NamedEngine {
  /** The name in {@code --engine} and in {@code resurfacer.yml}, e.g. {@code spark}. */
  String name();

  /**
   * What this engine runs, per format and operation, and why it refuses the rest, without connecting
   * to anything: the {@link EngineDeclarations} under its name.
   */
  default List<EngineCapability> capabilities() {
    return EngineDeclarations.of(name());
  }
}
