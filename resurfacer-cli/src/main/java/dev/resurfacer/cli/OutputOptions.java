package dev.resurfacer.cli;

import picocli.CommandLine.Option;

/** {@code --output} and {@code --verbose}, shared by every verb. */
public final class OutputOptions {
  public enum Format {
    text,
    json
  }

  @Option(
      names = "--output",
      paramLabel = "FORMAT",
      description = "text or json (default: ${DEFAULT-VALUE}).",
      defaultValue = "text")
  Format output = Format.text;

  @Option(names = "--verbose", description = "Show stack traces and more detail.")
  boolean verbose;

  boolean json() {
    return output == Format.json;
  }
}
