package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.Set;

/**
 * Move partitions that ended more than {@code olderThan} ago into a coarser spec.
 *
 * @param to {@code day}, {@code month} or {@code year}
 */
public record Condense(String to, Duration olderThan) implements Operation {
  public static final Set<String> GRANULARITIES = Set.of("day", "month", "year");

  public Condense {
    if (to == null || !GRANULARITIES.contains(to)) {
      throw new IllegalArgumentException("to must be day, month or year (got " + to + ")");
    }
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be given and not negative");
    }
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
