package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.Objects;

/**
 * @param olderThan the age guard: only unreferenced files older than this are removed
 * @param quarantine move the files under the table's quarantine instead of deleting them
 * @param quarantineRetention quarantine runs older than this are deleted by later runs
 */
public record RemoveOrphans(Duration olderThan, boolean quarantine, Duration quarantineRetention) implements Operation {
  public static final Duration DEFAULT_QUARANTINE_RETENTION = Duration.ofDays(7);

  public RemoveOrphans {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(quarantineRetention, "quarantineRetention");
    if (olderThan.isNegative() || quarantineRetention.isNegative()) {
      throw new IllegalArgumentException("olderThan and quarantineRetention must not be negative");
    }
  }

  public RemoveOrphans(Duration olderThan) {
    this(olderThan, false, DEFAULT_QUARANTINE_RETENTION);
  }

  @Override
  public String name() {
    return "remove-orphans";
  }

  @Override
  public int order() {
    return REMOVE_ORPHANS;
  }
}
