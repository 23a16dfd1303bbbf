package dev.resurfacer.delta.compact;

import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A library error as one line: Kernel's and Parquet's messages can run to a whole schema over many
 * lines, which a report line must not carry. Each message of the cause chain contributes its first
 * line, at most {@value #MAX} characters, repeats left out.
 */
final class Failures {
  private static final int MAX = 240;

  private Failures() {}

  static String oneLine(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable t = e;
        t != null && parts.size() < 3;
        t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m == null || m.isBlank()) {
        continue;
      }
      String line = m.strip().lines().findFirst().orElse("").strip();
      String shown = line.length() > MAX ? line.substring(0, MAX) + "…" : line;
      if (parts.stream().noneMatch(p -> p.contains(shown))) {
        parts.add(shown);
      }
    }
    return parts.isEmpty() ? e.getClass().getSimpleName() : String.join(": ", parts);
  }

  /** A failure of one bin, on one line, naming the file it happened at. */
  static final class FileFailure extends IllegalStateException {
    FileFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** {@code e}, raised while reading the bin's input {@code logPath}, as one line naming it. */
  static FileFailure reading(String logPath, Throwable e) {
    return e instanceof FileFailure f
        ? f
        : new FileFailure("reading data file " + logPath + ": " + oneLine(e), e);
  }

  /** {@code e}, raised while writing new files into {@code directory}, as one line naming it (a read failure stays one). */
  static FileFailure writing(String directory, Throwable e) {
    return e instanceof FileFailure f
        ? f
        : new FileFailure("writing new files in " + directory + ": " + oneLine(e), e);
  }

  /** {@code rows} whose read failures name {@code logPath}. */
  static <T> CloseableIterator<T> naming(String logPath, CloseableIterator<T> rows) {
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        try {
          return rows.hasNext();
        } catch (RuntimeException e) {
          throw reading(logPath, e);
        }
      }

      @Override
      public T next() {
        try {
          return rows.next();
        } catch (RuntimeException e) {
          throw reading(logPath, e);
        }
      }

      @Override
      public void close() throws IOException {
        rows.close();
      }
    };
  }
}
