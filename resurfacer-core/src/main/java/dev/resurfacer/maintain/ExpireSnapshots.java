package dev.resurfacer.maintain;

import java.time.Duration;

/**
 * Expire old snapshots and delete the files only they reach.
 *
 * @param olderThan null for the table's {@code history.expire.max-snapshot-age-ms}
 * @param retainLast null for the table's {@code history.expire.min-snapshots-to-keep}
 */
public record ExpireSnapshots(Duration olderThan, Integer retainLast) implements Operation {
  public ExpireSnapshots {
    if (olderThan != null && olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative");
    }
    if (retainLast != null && retainLast < 1) {
      throw new IllegalArgumentException("retainLast must be at least 1");
    }
  }

  /** The table's own retention properties. */
  public static ExpireSnapshots tableDefaults() {
    return new ExpireSnapshots(null, null);
  }

  @Override
  public String name() {
    return "expire";
  }

  @Override
  public int order() {
    return EXPIRE_SNAPSHOTS;
  }
}
