package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.RewritePositionDeletes;
import dev.resurfacer.spark.SparkContent;
import dev.resurfacer.spark.SparkSql;
import dev.resurfacer.storage.StorageFences;
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
public record SparkIceberg(SparkSql sql, Map<String, String> catalogs, StorageFences fences) {
  public SparkIceberg {
    Objects.requireNonNull(sql, "sql");
    catalogs = Map.copyOf(catalogs);
  }

  public SparkTable table(IcebergTable t) {
    return SparkTable.of(t, catalogs);
  }

  /** The operations Iceberg's Spark procedures run for us. */
  public List<OperationExecutor<?, IcebergTable>> executors() {
    return List.of(
        OperationExecutor.of(Compact.class, new SparkCompact(this)),
        OperationExecutor.of(RewriteManifests.class, new SparkRewriteManifests(this)),
        OperationExecutor.of(ExpireSnapshots.class, new SparkExpire(this)),
        OperationExecutor.of(RemoveOrphans.class, new SparkRemoveOrphans(this)),
        OperationExecutor.of(RewritePositionDeletes.class, new SparkRewritePositionDeletes(this)));
  }

  /** The live rows of the table at one snapshot, as {@link SparkContent} measures them. */
  SparkContent contentAt(SparkTable table, long snapshotId) {
    return SparkContent.of(sql, table.qualified() + " VERSION AS OF " + snapshotId);
  }

  /** One statement's single result row, by column name. */
  Map<String, Object> callOne(String statement) {
    return SparkContent.one(sql, statement);
  }

  static long asLong(Object value) {
    return SparkContent.asLong(value);
  }
}
