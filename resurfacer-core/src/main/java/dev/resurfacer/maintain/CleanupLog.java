package dev.resurfacer.maintain;

import java.time.Duration;

/**
 * Delete Delta log entries older than the log retention that precede a complete checkpoint.
 *
 * @param retention null for the table's {@code delta.logRetentionDuration} (30 days when unset)
 */
public record CleanupLog(Duration retention) implements Operation {
  public CleanupLog {
    if (retention != null && retention.isNegative()) {
      throw new IllegalArgumentException("retention must not be negative");
    }
  }

  public static CleanupLog tableDefaults() {
    return new CleanupLog(null);
  }

  @Override
  public String name() {
    return "cleanup-log";
  }

  @Override
  public int order() {
    return CLEANUP_LOG;
  }
}
