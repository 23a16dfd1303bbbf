package dev.resurfacer.cli;

import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.engines.ExecutionEngines;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * What the process was started with: its environment and directories, and where an engine name is
 * looked up ({@link ExecutionEngines#provider} unless a spark-submit job puts its own session behind a name). Tests supply their own.
 */
public record CliContext(
    Map<String, String> env,
    Path workingDir,
    Path home,
    Function<String, ExecutionEngineProvider> engines) {
  public CliContext {
    env = Map.copyOf(env);
  }

  public CliContext(Map<String, String> env, Path workingDir, Path home) {
    this(env, workingDir, home, ExecutionEngines::provider);
  }

  public static CliContext system() {
    return new CliContext(
        System.getenv(), Path.of("").toAbsolutePath(), Path.of(System.getProperty("user.home")));
  }

  /** The provider named {@code name}; an unknown name is a usage error naming the known ones. */
  public ExecutionEngineProvider engine(String name) {
    return engines.apply(name);
  }

  /** This context with {@code provider} answering for its name and every other name looked up as before. */
  public CliContext withEngine(ExecutionEngineProvider provider) {
    Function<String, ExecutionEngineProvider> others = engines;
    return new CliContext(
        env,
        workingDir,
        home,
        name -> name.equals(provider.name()) ? provider : others.apply(name));
  }
}
