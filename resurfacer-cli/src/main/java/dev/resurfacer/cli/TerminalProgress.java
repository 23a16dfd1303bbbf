package dev.resurfacer.cli;

import dev.resurfacer.progress.Progress;
import dev.resurfacer.units.ByteSizes;
import java.util.concurrent.atomic.AtomicLong;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * A live bar on stderr (me.tongfei:progressbar): percent, count, rate and ETA. One bar at a time: a
 * task started while a bar is up (compaction inside {@code maintain}) shows as that bar's note.
 */
final class TerminalProgress implements Progress {
  /** Up to this many steps the bar is drawn at every step; a longer task (a big delete) is drawn on a clock instead. */
  private static final long DRAW_EVERY_STEP_UP_TO = 1_000;

  private ProgressBar top;

  @Override
  public synchronized Task start(String name, String unit, long total, long totalBytes) {
    if (top != null) {
      return new Nested(top, name, unit, total);
    }
    if (total == 0) {
      return Task.NONE;
    }
    boolean inBytes = total > 0 && totalBytes > 0;
    ProgressBarBuilder b =
        ProgressBar.builder().setTaskName(name).setUpdateIntervalMillis(200).showSpeed();
    if (inBytes) {
      long scale = totalBytes >= 10L << 20 ? 1L << 20 : totalBytes >= 10L << 10 ? 1L << 10 : 1;
      b.setInitialMax(totalBytes)
          .setUnit(scale == 1L << 20 ? " MiB" : scale == 1L << 10 ? " KiB" : " B", scale);
    } else {
      b.setInitialMax(total).setUnit(" " + unit, 1);
    }
    top = b.build();
    return new Top(top, unit, total, inBytes, total > 0 && total <= DRAW_EVERY_STEP_UP_TO);
  }

  private synchronized void finished(ProgressBar bar) {
    bar.close();
    if (top == bar) {
      top = null;
    }
  }

  /** The task that owns the bar: bytes on the bar (files in the note) when it knows them, else its units. */
  private final class Top implements Task {
    private final ProgressBar bar;
    private final String unit;
    private final long total;
    private final boolean inBytes;
    private final boolean drawEveryStep;
    private final AtomicLong units = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private volatile String note = "";

    Top(ProgressBar bar, String unit, long total, boolean inBytes, boolean drawEveryStep) {
      this.bar = bar;
      this.unit = unit;
      this.total = total;
      this.inBytes = inBytes;
      this.drawEveryStep = drawEveryStep;
    }

    @Override
    public void advance(long n, long b) {
      long u = units.addAndGet(n);
      long sum = bytes.addAndGet(b);
      bar.setExtraMessage(extra(u, sum));
      bar.stepBy(inBytes ? b : n);
      if (drawEveryStep) {
        // the bar's own clock draws every 200 ms: steps quicker than that would never be seen
        synchronized (bar) {
          bar.refresh();
        }
      }
    }

    @Override
    public void note(String text) {
      note = text;
      bar.setExtraMessage(extra(units.get(), bytes.get()));
    }

    private String extra(long u, long b) {
      String counted = inBytes ? u + "/" + total + " " + unit : b > 0 ? ByteSizes.format(b) : "";
      // the bar's renderer puts the message right after the rate
      return " " + (counted + (note.isEmpty() ? "" : " " + note)).trim();
    }

    @Override
    public void close() {
      finished(bar);
    }
  }

  /** A task under the one on the bar: its count goes into the bar's note. */
  private static final class Nested implements Task {
    private final ProgressBar bar;
    private final String name;
    private final String unit;
    private final long total;
    private final AtomicLong units = new AtomicLong();

    Nested(ProgressBar bar, String name, String unit, long total) {
      this.bar = bar;
      this.name = name;
      this.unit = unit;
      this.total = total;
    }

    @Override
    public void advance(long n, long b) {
      long u = units.addAndGet(n);
      bar.setExtraMessage(" " + name + ": " + u + (total > 0 ? "/" + total : "") + " " + unit);
    }

    @Override
    public void note(String text) {
      bar.setExtraMessage(" " + name + ": " + text);
    }

    @Override
    public void close() {}
  }
}
