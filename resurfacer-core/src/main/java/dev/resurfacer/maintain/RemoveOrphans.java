package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.Objects;

/**
 * @param olderThan the age guard: only unreferenced files older than this are removed
 * @param quarantine move the files under the table's quarantine instead of deleting them
 * @param quarantineRetention quarantine runs older than this are deleted by later runs
 * @param listing a storage listing read instead of listing storage (S3 Inventory manifest.json or a plain list); null lists storage
 */
public record RemoveOrphans(
    Duration olderThan, boolean quarantine, Duration quarantineRetention, String listing)
    implements Operation {
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

  public RemoveOrphans(Duration olderThan, boolean quarantine, Duration quarantineRetention) {
    this(olderThan, quarantine, quarantineRetention, null);
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
