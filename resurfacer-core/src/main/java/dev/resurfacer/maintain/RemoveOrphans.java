package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.Objects;

/** @param olderThan the age guard: only unreferenced files older than this are deleted */
public record RemoveOrphans(Duration olderThan) implements Operation {
  public RemoveOrphans {
    Objects.requireNonNull(olderThan, "olderThan");
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative");
    }
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
