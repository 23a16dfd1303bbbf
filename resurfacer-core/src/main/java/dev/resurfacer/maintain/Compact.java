package dev.resurfacer.maintain;

import java.util.Map;

/**
 * Rewrite small files (and files with many deletes) into files of the target size.
 *
 * @param strategy {@code binpack}
 * @param options Spark {@code rewrite_data_files} option names and values, e.g. {@code min-input-files=2}
 */
public record Compact(String strategy, Map<String, String> options) implements Operation {
  public Compact {
    options = Map.copyOf(options);
  }

  public static Compact binpack() {
    return new Compact("binpack", Map.of());
  }

  public Compact withOption(String key, String value) {
    Map<String, String> m = new java.util.LinkedHashMap<>(options);
    m.put(key, value);
    return new Compact(strategy, m);
  }

  @Override
  public String name() {
    return "compact";
  }

  @Override
  public int order() {
    return COMPACT;
  }
}
