package dev.resurfacer.spark;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.engines.EngineDeclarations;
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
  public static final String NAME = EngineDeclarations.SPARK;
  static final Set<String> KEYS = Set.of("remote");
  static final Set<String> PREFIXES = Set.of("catalogs", "conf");

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

  static SparkEngine connect(
      EngineSettings settings, Function<EngineSettings, SparkSql> connector) {
    settings.rejectUnknown(KEYS, PREFIXES);
    return new SparkEngine(connector.apply(settings), settings.under("catalogs"));
  }

  @Override
  public String name() {
    return NAME;
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
    public ExecutionEngine open(EngineSettings settings) {
      return connect(settings, ConnectSql::open);
    }
  }
}
