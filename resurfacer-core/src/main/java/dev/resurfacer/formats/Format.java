package dev.resurfacer.formats;

import dev.resurfacer.config.CatalogConfig;

/**
 * A table format this tool maintains. The one rule that tells them apart: a table's format is its
 * catalog's ({@link #of(CatalogConfig)}: a {@code type: delta} catalog holds Delta tables, every other
 * type Iceberg tables); a location given as a path is a Delta table's when it holds a {@code _delta_log}.
 */
public enum Format {
  ICEBERG("iceberg", "Iceberg", "not a table of the chosen catalog"),
  DELTA("delta", "Delta", "neither a table of a delta catalog in the configuration nor a path");

  private final String id;
  private final String label;
  private final String notOne;

  Format(String id, String label, String notOne) {
    this.id = id;
    this.label = label;
    this.notOne = notOne;
  }

  /** The name sentences use: {@code Iceberg} or {@code Delta}. */
  public String label() {
    return label;
  }

  /** What a table the user names is when it is not one of this format's, by this format's rule: "neither ... nor ...". */
  public String notOne() {
    return notOne;
  }

  /** The name capabilities, reports and JSON use: {@code iceberg} or {@code delta}. */
  public String id() {
    return id;
  }

  public static Format of(CatalogConfig catalog) {
    return catalog.isDelta() ? DELTA : ICEBERG;
  }

  /** The format of the table {@code config} names {@code table}: Delta when a delta catalog maps the name, else Iceberg. */
  public static Format of(dev.resurfacer.config.ResurfacerConfig config, String table) {
    return config.deltaLocation(table).isPresent() ? DELTA : ICEBERG;
  }

  @Override
  public String toString() {
    return id;
  }
}
