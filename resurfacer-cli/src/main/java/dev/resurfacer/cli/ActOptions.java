package dev.resurfacer.cli;

import picocli.CommandLine.Option;

/** {@code --yes}: every verb that changes a table previews unless it is given. */
final class ActOptions {
  @Option(
      names = "--yes",
      description = "Act. Without it the command only previews and changes nothing.")
  boolean yes;
}
