package dev.resurfacer.maintain;

import dev.resurfacer.report.Outcome;
import java.util.Map;

/**
 * What an executor reports for one operation on one table: its outcome, one sentence saying what it
 * did (or would do, or why it did nothing), and counters such as {@code rewritten_files}.
 */
public record Step(Outcome outcome, String message, Map<String, Long> metrics) {
  public Step {
    metrics = Map.copyOf(metrics);
  }

  public static Step done(String message, Map<String, Long> metrics) {
    return new Step(Outcome.DONE, message, metrics);
  }

  public static Step nothingToDo(String message, Map<String, Long> metrics) {
    return new Step(Outcome.NOTHING_TO_DO, message, metrics);
  }

  public static Step previewed(String message, Map<String, Long> metrics) {
    return new Step(Outcome.PREVIEWED, message, metrics);
  }
}
