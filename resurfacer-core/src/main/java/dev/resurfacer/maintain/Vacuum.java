package dev.resurfacer.maintain;

import java.time.Duration;

/**
 * Delete files under a Delta table that no version within the retention needs (Delta's {@code VACUUM}).
 *
 * @param retention null for the table's {@code delta.deletedFileRetentionDuration} (7 days when unset)
 * @param forceShorterRetention accept a retention shorter than the table's (readers of older versions may then fail)
 */
public record Vacuum(Duration retention, boolean forceShorterRetention) implements Operation {
  public Vacuum {
    if (retention != null && retention.isNegative()) {
      throw new IllegalArgumentException("retention must not be negative");
    }
  }

  /** The table's own {@code delta.deletedFileRetentionDuration}. */
  public static Vacuum tableDefaults() {
    return new Vacuum(null, false);
  }

  @Override
  public String name() {
    return "vacuum";
  }

  @Override
  public int order() {
    return VACUUM;
  }
}
