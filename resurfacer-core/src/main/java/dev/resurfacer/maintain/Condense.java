package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.Set;

/**
 * Move partitions that ended more than {@code olderThan} ago into a coarser spec.
 *
 * @param to {@code day}, {@code month} or {@code year}
 * @param memoryBytes the rewrite's memory budget, or null for compaction's default (checked where compaction
 *     takes it: at least 64MB)
 */
public record Condense(String to, Duration olderThan, Long memoryBytes) implements Operation {
  public static final Set<String> GRANULARITIES = Set.of("day", "month", "year");

  public Condense {
    if (to == null || !GRANULARITIES.contains(to)) {
      throw new IllegalArgumentException("to must be day, month or year (got " + to + ")");
    }
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be given and not negative");
    }
  }

  /** Condensing with compaction's default memory budget. */
  public Condense(String to, Duration olderThan) {
    this(to, olderThan, null);
  }

  @Override
  public String name() {
    return "condense";
  }

  @Override
  public int order() {
    return CONDENSE;
  }
}
