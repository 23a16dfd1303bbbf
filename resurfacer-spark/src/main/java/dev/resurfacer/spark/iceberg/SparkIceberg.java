package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.orphans.OrphanFences;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.spark.SparkSql;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the Spark engine's Iceberg executors share: where SQL runs, how our catalogs are named on the
 * cluster, and the fences orphan removal respects beyond the table.
 *
 * @param sql the cluster's SQL session
 * @param catalogs our catalog name to the cluster's ({@code engines.spark.catalogs.<ours>: <spark>}); same name otherwise
 * @param fences neighbours and protected files for orphan removal; null to check the table's own catalog only
 */
public record SparkIceberg(SparkSql sql, Map<String, String> catalogs, OrphanFences fences) {
  public SparkIceberg {
    Objects.requireNonNull(sql, "sql");
    catalogs = Map.copyOf(catalogs);
  }

  public SparkTable table(IcebergTable t) {
    return SparkTable.of(t, catalogs);
  }

  /** The operations Iceberg's Spark procedures run for us. */
  public List<OperationExecutor<?, IcebergTable>> executors() {
    return List.of(new SparkCompact(this), new SparkRewriteManifests(this), new SparkExpire(this), new SparkRemoveOrphans(this),
        new SparkRewritePositionDeletes(this));
  }

  /**
   * The live rows of the table at one snapshot, summarised on the cluster: their count and an
   * order-independent checksum, the sum of each row's 64-bit xxhash over every column (Spark hashes
   * doubles by their bits, so -0.0 and 0.0 differ; the sum is exact in decimal(38,0)).
   */
  Content contentAt(SparkTable table, long snapshotId) {
    // Spark refuses to hash map columns unless asked; a map hashes by its entries in stored order,
    // which a rewrite keeps, and a false mismatch only fails (and rolls back) the step
    sql.rows("SET spark.sql.legacy.allowHashOnMapType=true");
    Map<String, Object> r = callOne("SELECT count(*) AS n, coalesce(sum(CAST(xxhash64(*) AS DECIMAL(38,0))), 0) AS h FROM "
        + table.qualified() + " VERSION AS OF " + snapshotId);
    return new Content(asLong(r.get("n")), String.valueOf(r.get("h")));
  }

  /** A snapshot's live rows as {@link #contentAt} measures them. */
  record Content(long rows, String checksum) {
    @Override
    public String toString() {
      return rows + " rows, checksum " + checksum;
    }
  }

  /** One statement's single result row, by column name. */
  Map<String, Object> callOne(String statement) {
    List<Map<String, Object>> rows = sql.rows(statement);
    if (rows.size() != 1) {
      throw new IllegalStateException("expected one result row from the cluster, got " + rows.size() + ": " + statement);
    }
    return rows.get(0);
  }

  static long asLong(Object value) {
    return value == null ? 0 : ((Number) value).longValue();
  }
}
