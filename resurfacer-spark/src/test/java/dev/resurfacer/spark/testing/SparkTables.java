package dev.resurfacer.spark.testing;

import dev.resurfacer.spark.SparkSql;

/** Tables Spark writes for the engine's tests, the same on every run so that two of them can be compared. */
public final class SparkTables {
  private SparkTables() {}

  /**
   * A merge-on-read v2 table partitioned by {@code cat}: four inserts of 50 rows, a delete of every 7th
   * row and an update to {@code -0.0}; decimals, dates, nulls and a map. 171 live rows.
   *
   * @param table the qualified name, e.g. {@code lake.db.events}
   */
  public static void writeMessy(SparkSql sql, String table) {
    sql.rows("CREATE TABLE " + table
        + " (id BIGINT, cat STRING, amount DECIMAL(12,2), score DOUBLE, day DATE,"
        + " tags MAP<STRING, STRING>) USING iceberg"
        + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')");
    for (int batch = 0; batch < 4; batch++) {
      sql.rows("INSERT INTO " + table
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END, CAST(id * 1.25 AS DECIMAL(12,2)),"
          + " CASE WHEN id % 9 = 0 THEN NULL ELSE id / 7.0 END, date_add(DATE '2026-01-01', CAST(id % 30 AS INT)),"
          + " map('k', concat('v', id), 'z', CASE WHEN id % 3 = 0 THEN NULL ELSE 'x' END)"
          + " FROM range(" + batch * 50 + ", " + (batch * 50 + 50) + ")");
    }
    sql.rows("DELETE FROM " + table + " WHERE id % 7 = 0");
    sql.rows("UPDATE " + table + " SET score = -0.0 WHERE id % 5 = 0");
  }
}
