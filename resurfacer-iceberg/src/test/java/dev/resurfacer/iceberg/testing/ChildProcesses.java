package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the server fixtures that run as child processes share: stopping them, reading their logs, removing their folders. */
public final class ChildProcesses {
  private ChildProcesses() {}

  /** SIGTERM, then SIGKILL after {@code graceSeconds}; null-safe. */
  public static void stop(Process process, int graceSeconds) {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The log file's text, or a note saying why there is none. */
  public static String log(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Deletes a folder and everything under it; null-safe. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
