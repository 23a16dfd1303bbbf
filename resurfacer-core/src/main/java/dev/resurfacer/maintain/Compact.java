package dev.resurfacer.maintain;

import java.util.Map;

/**
 * Rewrite small files (and files with many deletes) into files of the target size.
 *
 * @param strategy {@code binpack}, {@code sort} or {@code zorder}
 * @param orderBy with sort: "col [ASC|DESC] [NULLS FIRST|LAST], ..." (null: the table's sort order);
 *     with zorder: the columns, comma-separated
 * @param options Spark {@code rewrite_data_files} option names and values, e.g. {@code min-input-files=2};
 *     for an execution engine other than local also {@link #WHERE} (the {@code --where} filter text) and
 *     {@link #PARTITION} (a partition path such as {@code cat=a})
 */
public record Compact(String strategy, String orderBy, Map<String, String> options) implements Operation {
  public static final String WHERE = "where";
  public static final String PARTITION = "partition";

  public Compact {
    options = Map.copyOf(options);
  }

  public static Compact binpack() {
    return new Compact("binpack", null, Map.of());
  }

  /** Sort by {@code sortBy}, or by the table's declared order when null. */
  public static Compact sort(String sortBy) {
    return new Compact("sort", sortBy, Map.of());
  }

  public static Compact zOrder(String... columns) {
    return new Compact("zorder", String.join(",", columns), Map.of());
  }

  public Compact withOption(String key, String value) {
    Map<String, String> m = new java.util.LinkedHashMap<>(options);
    m.put(key, value);
    return new Compact(strategy, orderBy, m);
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
