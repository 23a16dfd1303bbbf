package dev.resurfacer.formats;

import dev.resurfacer.config.CatalogConfig;

/**
 * A table format this tool maintains. The one rule that tells them apart: a table's format is its
 * catalog's ({@link #of(CatalogConfig)}: a {@code type: delta} catalog holds Delta tables, every other
 * type Iceberg tables); a location given as a path is a Delta table's when it holds a {@code _delta_log}.
 */
public enum Format {
  ICEBERG("iceberg"),
  DELTA("delta");

  private final String id;

  Format(String id) {
    this.id = id;
  }

  /** The name capabilities, reports and JSON use: {@code iceberg} or {@code delta}. */
  public String id() {
    return id;
  }

  public static Format of(CatalogConfig catalog) {
    return catalog.isDelta() ? DELTA : ICEBERG;
  }

  @Override
  public String toString() {
    return id;
  }
}
