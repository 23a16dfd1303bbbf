package dev.resurfacer.cli;

import java.nio.file.Path;
import java.util.Map;

/** What the process was started with: its environment and directories. Tests supply their own. */
public record CliContext(Map<String, String> env, Path workingDir, Path home) {
  public CliContext {
    env = Map.copyOf(env);
  }

  public static CliContext system() {
    return new CliContext(System.getenv(), Path.of("").toAbsolutePath(), Path.of(System.getProperty("user.home")));
  }
}
