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
 *     {@link #PARTITION} (a partition path such as {@code cat=a}); {@link #LAYOUT}, {@link #LAYOUT_MIN_GAIN} and
 *     {@link #SCAN_REPORTS} for the {@code compact.layout: auto} policy
 */
public record Compact(String strategy, String orderBy, Map<String, String> options)
    implements Operation {
  public static final String WHERE = "where";
  public static final String PARTITION = "partition";
  /** {@code auto}: the executor compacts into the layout {@code advise} recommends from the scan reports (docs/advise.md). */
  public static final String LAYOUT = "layout";
  /** With {@code layout=auto}: the cut in expected read cost (0-1) a layout change must bring; default {@link #DEFAULT_LAYOUT_MIN_GAIN}. */
  public static final String LAYOUT_MIN_GAIN = "layout.min-gain";
  /** With {@code layout=auto}: the directory (or file) of scan reports. */
  public static final String SCAN_REPORTS = "layout.scan-reports";

  public static final double DEFAULT_LAYOUT_MIN_GAIN = 0.2;

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

  /** Whether the layout comes from the scan reports ({@code compact.layout: auto}). */
  public boolean autoLayout() {
    return "auto".equals(options.get(LAYOUT));
  }

  /** This step without the {@code layout.*} settings: what a compaction engine is handed. */
  public Compact withoutLayoutSettings() {
    Map<String, String> m = new java.util.LinkedHashMap<>(options);
    m.remove(LAYOUT);
    m.remove(LAYOUT_MIN_GAIN);
    m.remove(SCAN_REPORTS);
    return new Compact(strategy, orderBy, m);
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
  public java.util.Set<String> givenSettings() {
    return autoLayout() ? java.util.Set.of(LAYOUT) : java.util.Set.of();
  }

  @Override
  public int order() {
    return COMPACT;
  }
}
