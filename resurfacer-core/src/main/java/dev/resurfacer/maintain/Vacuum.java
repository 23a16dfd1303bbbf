package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.List;

/**
 * Delete files under a Delta table that no version within the retention needs (Delta's {@code VACUUM}).
 *
 * @param retention null for the table's {@code delta.deletedFileRetentionDuration} (7 days when unset)
 * @param forceShorterRetention accept a retention shorter than the table's (readers of older versions may then fail)
 * @param lite consider only files the log's tombstones name (Delta's {@code VACUUM … LITE}): no storage listing
 * @param keepVersions table versions whose files (data and deletion vectors) are never deleted, for time travel
 */
public record Vacuum(
    Duration retention, boolean forceShorterRetention, boolean lite, List<Long> keepVersions)
    implements Operation {
  public Vacuum {
    if (retention != null && retention.isNegative()) {
      throw new IllegalArgumentException("retention must not be negative");
    }
    keepVersions = keepVersions == null ? List.of() : List.copyOf(keepVersions);
    if (keepVersions.stream().anyMatch(v -> v < 0)) {
      throw new IllegalArgumentException("a kept version must not be negative");
    }
  }

  /** Full mode, no version kept beyond the retention. */
  public Vacuum(Duration retention, boolean forceShorterRetention) {
    this(retention, forceShorterRetention, false, List.of());
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
  public java.util.Set<String> givenSettings() {
    java.util.Set<String> given = new java.util.TreeSet<>();
    if (lite) {
      given.add("lite");
    }
    if (!keepVersions.isEmpty()) {
      given.add("keep-versions");
    }
    return java.util.Collections.unmodifiableSet(given);
  }

  @Override
  public int order() {
    return VACUUM;
  }

  @Override
  public String insteadOn(dev.resurfacer.formats.Format format) {
    return format == dev.resurfacer.formats.Format.ICEBERG ? "expire and remove-orphans" : "";
  }
}
