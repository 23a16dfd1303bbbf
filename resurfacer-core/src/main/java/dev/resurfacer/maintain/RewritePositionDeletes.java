package dev.resurfacer.maintain;

import java.util.Map;

/**
 * Format v2: compact small position-delete files (options by Spark's {@code rewrite_position_delete_files}
 * names); format v3: turn position-delete files into deletion vectors.
 */
public record RewritePositionDeletes(Map<String, String> options) implements Operation {
  public RewritePositionDeletes {
    // in the order given: the planner names the first option it refuses
    options = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
  }

  @Override
  public String name() {
    return "rewrite-position-deletes";
  }

  @Override
  public int order() {
    return REWRITE_POSITION_DELETES;
  }
}
