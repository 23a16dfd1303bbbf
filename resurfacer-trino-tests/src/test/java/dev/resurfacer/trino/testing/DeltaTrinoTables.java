package dev.resurfacer.trino.testing;

import dev.resurfacer.delta.scan.LogicalRows;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.S3Settings;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Delta tables written by Trino's Delta Lake connector on s3proxy (many small files, nulls,
 * decimals, dates, a partition column), opened by our Delta engine at the same {@code s3://}
 * location (our S3 storage, not s3proxy's backing folder), and their rows read both ways:
 * by Trino and by Delta Kernel, in one text form ({@code id|qty|price|note|day|flag|cat}).
 */
public final class DeltaTrinoTables {
  public static final String SCHEMA = "dops";
  static final String COLUMNS = "id, qty, price, note, day, flag, cat";

  private final TrinoLake lake;

  public DeltaTrinoTables(TrinoLake lake) {
    this.lake = lake;
  }

  /** Where Trino writes the table. */
  public String location(String name) {
    return lake.s3().warehouse("delta/" + SCHEMA + "/" + name);
  }

  /** Where s3proxy's filesystem backend keeps it: what our Delta engine opens. */
  public Path localPath(String name) {
    return lake.s3().localFile(location(name));
  }

  /** {@code delta.dops.NAME} in {@code batches} inserts of 40 rows, then a delete of every fifth row. */
  public DeltaTable create(String name, int batches, String with) {
    lake.sql("CREATE SCHEMA IF NOT EXISTS delta." + SCHEMA + " WITH (location = '"
        + lake.s3().warehouse("delta/" + SCHEMA) + "')");
    lake.sql("CREATE TABLE delta." + SCHEMA + "." + name
        + " (id BIGINT, qty INTEGER, price DECIMAL(10,2), note VARCHAR, day DATE,"
        + " flag BOOLEAN, cat VARCHAR) WITH (location = '" + location(name)
        + "', partitioned_by = ARRAY['cat']"
        + (with == null ? "" : ", " + with) + ")");
    for (int b = 0; b < batches; b++) {
      lake.sql("INSERT INTO delta." + SCHEMA + "." + name
          + " SELECT x, CAST(x % 7 AS INTEGER), CAST(x AS DECIMAL(10,2)) / 4,"
          + " IF(x % 11 = 0, NULL, 'n-' || CAST(x AS VARCHAR)), date_add('day', x, DATE '2026-01-01'), x % 2 = 0,"
          + " IF(x % 3 = 0, 'a', 'b') FROM UNNEST(sequence(" + (b * 40) + ", " + (b * 40 + 39)
          + ")) AS s(x)");
    }
    lake.sql("DELETE FROM delta." + SCHEMA + "." + name + " WHERE id % 5 = 0");
    return open(name);
  }

  /** The table at its {@code s3://} location, read through our S3 storage (the settings a delta catalog gives). */
  public DeltaTable open(String name) {
    return DeltaTables.open(
        SCHEMA + "." + name,
        location(name),
        localPath(name).getParent(),
        S3Settings.of(lake.s3().clientProperties(), "test"));
  }

  /** The delta catalog of {@code resurfacer.yml} mapping {@code dops.NAME} to its {@code s3://} location, with the S3 settings. */
  public String catalogYaml(String name) {
    StringBuilder b = new StringBuilder("catalogs:\n  deltas:\n    type: delta\n    tables:\n      "
        + SCHEMA + "." + name + ": " + location(name) + "\n    properties:\n");
    lake.s3()
        .clientProperties()
        .forEach((k, v) -> b.append("      ").append(k).append(": \"").append(v).append("\"\n"));
    return b.toString();
  }

  /** The rows as Trino reads them now, sorted. */
  public List<String> trinoRows(String name) {
    List<String> out = new ArrayList<>();
    for (var row : lake.table("SELECT format('%s|%s|%s|%s|%s|%s|%s', " + COLUMNS
        + ") AS r FROM delta." + SCHEMA + "." + name)) {
      out.add((String) row.get("r"));
    }
    out.sort(null);
    return out;
  }

  /** The rows of the latest version as Delta Kernel reads them (deletion vectors applied), sorted. */
  public static List<String> kernelRows(DeltaTable t) {
    List<String> out = new ArrayList<>();
    LogicalRows.forEach(t, t.latest(), row -> out.add(text(row)));
    out.sort(null);
    return out;
  }

  private static String text(Row row) {
    StringBuilder b = new StringBuilder();
    for (String column : COLUMNS.split(", ")) {
      int i = row.getSchema().indexOf(column);
      if (b.length() > 0) {
        b.append('|');
      }
      if (row.isNullAt(i)) {
        b.append("null");
        continue;
      }
      var type = row.getSchema().at(i).getDataType();
      if (type instanceof LongType) {
        b.append(row.getLong(i));
      } else if (type instanceof IntegerType) {
        b.append(row.getInt(i));
      } else if (type instanceof DecimalType) {
        b.append(row.getDecimal(i).toPlainString());
      } else if (type instanceof DateType) {
        b.append(LocalDate.ofEpochDay(row.getInt(i)));
      } else if (type instanceof BooleanType) {
        b.append(row.getBoolean(i));
      } else {
        b.append(row.getString(i));
      }
    }
    return b.toString();
  }
}
