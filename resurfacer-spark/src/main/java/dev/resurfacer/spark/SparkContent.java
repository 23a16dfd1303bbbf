package dev.resurfacer.spark;

import java.util.List;
import java.util.Map;

/**
 * The live rows of one table version, summarised on the cluster: their count and an
 * order-independent checksum, the sum of each row's 64-bit xxhash over every column (Spark hashes
 * doubles by their bits, so -0.0 and 0.0 differ; the sum is exact in decimal(38,0)). What every
 * Spark executor compares before and after the cluster commits a rewrite, for either format.
 */
public record SparkContent(long rows, String checksum) {

  /**
   * @param relation a relation Spark reads at one version, e.g. {@code `cat`.`db`.`t` VERSION AS OF 42}
   *     or {@code delta.`/path` VERSION AS OF 7}
   */
  public static SparkContent of(SparkSql sql, String relation) {
    // Spark refuses to hash map columns unless asked; a map hashes by its entries in stored order,
    // which a rewrite keeps, and a false mismatch only fails (and rolls back) the step
    sql.rows("SET spark.sql.legacy.allowHashOnMapType=true");
    Map<String, Object> r = one(
        sql,
        "SELECT count(*) AS n, coalesce(sum(CAST(xxhash64(*) AS DECIMAL(38,0))), 0) AS h FROM "
            + relation);
    return new SparkContent(asLong(r.get("n")), String.valueOf(r.get("h")));
  }

  /** One statement's single result row, by column name. */
  public static Map<String, Object> one(SparkSql sql, String statement) {
    List<Map<String, Object>> rows = sql.rows(statement);
    if (rows.size() != 1) {
      throw new IllegalStateException(
          "expected one result row from the cluster, got " + rows.size() + ": " + statement);
    }
    return rows.get(0);
  }

  public static long asLong(Object value) {
    return value == null ? 0 : ((Number) value).longValue();
  }

  @Override
  public String toString() {
    return rows + " rows, checksum " + checksum;
  }
}
