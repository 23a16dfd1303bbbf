package dev.resurfacer.policy;

import java.util.List;

/**
 * A table's policy and where it came from.
 *
 * @param matched the {@code tables:} patterns that matched, least specific first (the last one wins a conflict)
 */
public record EffectivePolicy(String table, List<String> matched, TablePolicy policy) {
  public EffectivePolicy {
    matched = List.copyOf(matched);
  }
}
