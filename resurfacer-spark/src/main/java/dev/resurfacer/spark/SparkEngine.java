package dev.resurfacer.spark;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.engines.EngineCapability;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.spark.delta.SparkDelta;
import dev.resurfacer.spark.iceberg.SparkIceberg;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code --engine spark}: Iceberg's own Spark procedures and delta-spark's OPTIMIZE and VACUUM on the user's cluster, reached through Spark
 * Connect ({@code engines.spark.remote: sc://host:port}) or, inside a spark-submit job, through the
 * job's session. Previews, fences and verification stay ours (see each executor). Settings:
 * {@code remote}, {@code catalogs.<ours>: <spark catalog>} where the cluster names a catalog
 * differently, and {@code conf.<key>} session conf set on connect (values may be secrets: never shown).
 */
public final class SparkEngine implements ExecutionEngine {
  public static final String NAME = "spark";
  static final Set<String> KEYS = Set.of("remote");
  static final Set<String> PREFIXES = Set.of("catalogs", "conf");

  static final List<EngineCapability> CAPABILITIES = List.of(
      EngineCapability.works(NAME, "iceberg", "compact",
          "rewrite_data_files (binpack, sort, zorder; same option names; --where and identity --partition as its where); local preview; content (row count + xxhash64 checksum of every row) checked on the cluster after Spark's commit, rolled back on a mismatch")
          .refusing("layout", "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      EngineCapability.works(NAME, "iceberg", "rewrite-manifests",
          "rewrite_manifests, clustered by whole partition (sort-by refused); local preview; content checked before/after")
          .refusing("sort-by", "Iceberg's rewrite_manifests procedure takes no clustering fields, it clusters by whole partition"),
      EngineCapability.works(NAME, "iceberg", "expire",
          "expire_snapshots with the previewed cutoff and snapshot ids; refused when a file is referenced under two spellings"),
      EngineCapability.works(NAME, "iceberg", "remove-orphans",
          "remove_orphan_files as a dry run; our fences check each candidate and delete through the table's FileIO"),
      EngineCapability.refused(NAME, "iceberg", "remove-dangling-deletes",
          "Iceberg's Spark procedures have none on its own (only inside rewrite_data_files); run it with --engine local"),
      EngineCapability.works(NAME, "iceberg", "rewrite-position-deletes",
          "rewrite_position_delete_files (format v2; v3 deletion vectors are refused: --engine local converts to them); local preview; content checked on the cluster after Spark's commit, rolled back on a mismatch"),
      EngineCapability.refused(NAME, "iceberg", "condense", "Spark has no procedure for it; run it with --engine local"),
      EngineCapability.refused(NAME, "iceberg", "apply-retention", "metadata only; run it with --engine local"),
      EngineCapability.works(NAME, "delta", "compact",
          "delta-spark's OPTIMIZE (bin-pack) and OPTIMIZE ... ZORDER BY on delta.`<location>`; local preview from our planner, with"
          + " optimize.minFileSize/maxFileSize/maxDeletedRowsRatio set so delta-spark selects the same files (z-order: every file of"
          + " every partition, as delta-spark does); same table checked first (id, version, files); content (row count + xxhash64"
          + " checksum) checked on the cluster after its commit, restored on a mismatch. Refused: liquid-clustered tables, a lone"
          + " file our plan rewrites only to purge deleted rows (delta-spark never does), --where/--partition, options without a"
          + " delta-spark equivalent")
          .refusing("layout", "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      EngineCapability.works(NAME, "delta", "vacuum",
          "delta-spark's VACUUM ... FULL RETAIN n HOURS, run only when its DRY RUN lists nothing our own vacuum plan keeps (compared by"
          + " file identity; e.g. _change_data files it would delete are refused); hours rounded up from the driver's clock so its"
          + " cutoff is never later than ours; every file gone afterwards checked against our plan")
          .refusing("lite", "the Spark route runs delta-spark's FULL mode against our plan; lite is not carried to it")
          .refusing("keep-versions", "delta-spark's VACUUM has no setting to keep chosen versions"),
      EngineCapability.refused(NAME, "delta", "checkpoint", "run it with --engine local (Kernel writes the checkpoint; delta-spark"
          + " checkpoints only on its own commits)"),
      EngineCapability.refused(NAME, "delta", "cleanup-log", "delta-spark has no log cleanup command (it trims the log on its own"
          + " checkpoints); run it with --engine local"));

  private final SparkSql sql;
  private final SparkIceberg iceberg;
  private final SparkDelta delta;

  SparkEngine(SparkSql sql, Map<String, String> catalogs) {
    this.sql = sql;
    this.iceberg = new SparkIceberg(sql, catalogs, null);
    this.delta = new SparkDelta(sql);
  }

  /** The engine on a session the caller already has (a spark-submit job's); closing the engine closes it. */
  public static SparkEngine on(SparkSql sql, EngineSettings settings) {
    settings.rejectUnknown(KEYS, PREFIXES);
    return new SparkEngine(sql, settings.under("catalogs"));
  }

  static SparkEngine connect(EngineSettings settings, Function<EngineSettings, SparkSql> connector) {
    settings.rejectUnknown(KEYS, PREFIXES);
    return new SparkEngine(connector.apply(settings), settings.under("catalogs"));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<EngineCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType) {
    if ("iceberg".equals(format) && handleType == IcebergTable.class) {
      return (List<OperationExecutor<?, T>>) (List<?>) iceberg.executors();
    }
    if ("delta".equals(format) && handleType == DeltaTable.class) {
      return (List<OperationExecutor<?, T>>) (List<?>) delta.executors();
    }
    return List.of();
  }

  @Override
  public void close() {
    sql.close();
  }

  /** Found by {@link java.util.ServiceLoader}; {@link #capabilities()} connects to nothing. */
  public static final class Provider implements ExecutionEngineProvider {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public List<EngineCapability> capabilities() {
      return CAPABILITIES;
    }

    @Override
    public ExecutionEngine open(EngineSettings settings) {
      return connect(settings, ConnectSql::open);
    }
  }
}
