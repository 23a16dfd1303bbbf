package dev.resurfacer.trino.testing;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/** Test tables written by Trino itself, with many small files, every common type, nulls and position deletes. */
public final class TrinoTables {
  public static final String SCHEMA = "ops";

  private final TrinoLake lake;
  private final String trinoCatalog;
  private final java.util.function.Supplier<org.apache.iceberg.catalog.Catalog> ours;

  /** Tables of the REST catalog, written through Trino's {@code iceberg}. */
  public TrinoTables(TrinoLake lake) {
    this(lake, TrinoLake.CATALOG, lake::catalog);
  }

  /** Tables written through Trino's {@code trinoCatalog}, opened by us through {@code ours}: the same catalog. */
  public TrinoTables(
      TrinoLake lake,
      String trinoCatalog,
      java.util.function.Supplier<org.apache.iceberg.catalog.Catalog> ours) {
    this.lake = lake;
    this.trinoCatalog = trinoCatalog;
    this.ours = ours;
  }

  /**
   * {@code <trino catalog>.ops.NAME}, partitioned by {@code cat} ('a' or 'b'), format v2, written in
   * {@code batches} inserts of 40 rows (two small files each), then one delete of every fifth row
   * (position delete files). {@code with} adds table properties, e.g. {@code sorted_by = ARRAY['id']}.
   */
  public IcebergTable create(String name, int batches, String with) {
    lake.sql("CREATE SCHEMA IF NOT EXISTS " + trinoCatalog + "." + SCHEMA);
    lake.sql("CREATE TABLE " + trinoCatalog + "." + SCHEMA + "." + name
        + " (id BIGINT, qty INTEGER, price DECIMAL(10,2), ratio DOUBLE,"
        + " score REAL, flag BOOLEAN, day DATE, ts TIMESTAMP(6), tstz TIMESTAMP(6) WITH TIME ZONE, note VARCHAR, raw VARBINARY,"
        + " cat VARCHAR) WITH (format_version = 2, partitioning = ARRAY['cat']"
        + (with == null ? "" : ", " + with) + ")");
    for (int b = 0; b < batches; b++) {
      lake.sql("INSERT INTO " + trinoCatalog + "." + SCHEMA + "." + name
          + " SELECT x, CAST(x % 7 AS INTEGER), CAST(x AS DECIMAL(10,2)) / 4,"
          + " x / 3e0, CAST(x AS REAL) / 7, x % 2 = 0, date_add('day', x, DATE '2026-01-01'),"
          + " date_add('second', x, TIMESTAMP '2026-01-01 00:00:00.123456'),"
          + " date_add('millisecond', x * 37, TIMESTAMP '2026-01-01 00:00:00.000000 UTC'),"
          + " IF(x % 11 = 0, NULL, 'n-' || CAST(x AS VARCHAR)), to_utf8(CAST(x * x AS VARCHAR)), IF(x % 3 = 0, 'a', 'b')"
          + " FROM UNNEST(sequence(" + (b * 40) + ", " + (b * 40 + 39) + ")) AS s(x)");
    }
    lake.sql("DELETE FROM " + trinoCatalog + "." + SCHEMA + "." + name + " WHERE id % 5 = 0");
    return open(name);
  }

  public IcebergTable open(String name) {
    TableIdentifier id = TableIdentifier.of(SCHEMA, name);
    Table table = ours.get().loadTable(id);
    return new IcebergTable(ours.get(), id, table, SCHEMA + "." + name);
  }

  /** Every row as Trino reads it now, type-tagged. */
  public java.util.List<String> trinoRows(String name) {
    return lake.rows("SELECT * FROM " + trinoCatalog + "." + SCHEMA + "." + name);
  }
}
