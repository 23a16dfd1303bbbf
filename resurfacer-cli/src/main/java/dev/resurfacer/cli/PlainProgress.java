package dev.resurfacer.cli;

import dev.resurfacer.progress.Progress;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Progress for a log (stdout not a terminal, or {@code --output json}): a plain line every so often, none for a short task. */
final class PlainProgress implements Progress {
  static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final PrintWriter err;

  PlainProgress(PrintWriter err) {
    this.err = err;
  }

  @Override
  public Task start(String name, String unit, long total, long totalBytes) {
    return new Lines(name, unit, total, totalBytes);
  }

  private final class Lines implements Task {
    private final String name;
    private final String unit;
    private final long total;
    private final long totalBytes;
    private final long started = System.nanoTime();
    private final AtomicLong units = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong lastLine = new AtomicLong(System.nanoTime());

    Lines(String name, String unit, long total, long totalBytes) {
      this.name = name;
      this.unit = unit;
      this.total = total;
      this.totalBytes = totalBytes;
    }

    @Override
    public void advance(long n, long b) {
      units.addAndGet(n);
      bytes.addAndGet(b);
      long now = System.nanoTime();
      long last = lastLine.get();
      if (now - last >= EVERY_NANOS && lastLine.compareAndSet(last, now)) {
        print(now);
      }
    }

    @Override
    public void note(String text) {}

    @Override
    public void close() {
      long now = System.nanoTime();
      if (now - started >= EVERY_NANOS) {
        print(now);
      }
    }

    private void print(long now) {
      long b = bytes.get();
      double seconds = Math.max(1e-3, (now - started) / 1e9);
      String line = String.format(
              Locale.ROOT,
              "progress: %s: %d%s %s",
              name,
              units.get(),
              total >= 0 ? "/" + total : "",
              unit)
          + (b > 0
              ? ", " + ByteSizes.format(b)
                  + (totalBytes > 0 ? "/" + ByteSizes.format(totalBytes) : "") + ", "
                  + ByteSizes.format((long) (b / seconds)) + "/s"
              : "")
          + String.format(Locale.ROOT, ", %.0fs", seconds);
      synchronized (err) {
        err.println(line);
        err.flush();
      }
    }
  }
}
