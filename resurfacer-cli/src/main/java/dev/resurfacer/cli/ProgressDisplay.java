package dev.resurfacer.cli;

import dev.resurfacer.progress.Progress;
import java.io.PrintWriter;

/** How a verb shows the progress of a long run: a live bar on a terminal, occasional plain lines otherwise, nothing when quiet. */
final class ProgressDisplay {
  private ProgressDisplay() {}

  /**
   * A bar only when a person watches: the process has a console (stdin and stdout are a terminal),
   * the terminal is not dumb and the output is text; otherwise plain lines on {@code err}.
   */
  static Progress choose(CliContext ctx, OutputOptions output, boolean quiet, PrintWriter err) {
    if (quiet) {
      return Progress.NONE;
    }
    if (onTerminal(ctx) && !output.json()) {
      return new TerminalProgress();
    }
    return new PlainProgress(err);
  }

  /** Whether {@code progress} draws a bar (which per-item lines would tear). */
  static boolean isBar(Progress progress) {
    return progress instanceof TerminalProgress;
  }

  static boolean onTerminal(CliContext ctx) {
    return System.console() != null && !"dumb".equals(ctx.env().get("TERM"));
  }

  /**
   * With a bar on screen, the per-group and per-operation log lines would tear it: the maintenance
   * loggers keep their warnings only. slf4j-simple reads a level when a logger is made, which for
   * these is after the verb starts.
   */
  static void quietLogsUnder(Progress progress) {
    if (isBar(progress)) {
      System.setProperty("org.slf4j.simpleLogger.log.dev.resurfacer.maintain", "warn");
    }
  }
}
