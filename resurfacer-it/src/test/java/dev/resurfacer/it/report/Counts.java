package dev.resurfacer.it.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Prints a suite's trial and invariant counts and appends them to target/reliability-counts.txt. */
public final class Counts {
  private Counts() {}

  public static void record(String line) {
    System.out.println(line);
    System.err.println(line);
    try {
      Files.createDirectories(Path.of("target"));
      Files.writeString(
          Path.of("target", "reliability-counts.txt"),
          line + System.lineSeparator(),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
