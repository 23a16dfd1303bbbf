package dev.resurfacer.spark;

import java.util.List;
import java.util.Map;

/**
 * Where the Spark engine's SQL runs: a Spark Connect session ({@link ConnectSql}) or, inside a
 * spark-submit job, the job's own session. Rows come back as plain Java values, one map per row (column name to value, in column order).
 */
public interface SparkSql extends AutoCloseable {
  /** Runs one statement on the cluster and collects its result rows. */
  List<Map<String, Object>> rows(String sql);

  /** Where the statements run, without any secret: {@code sc://host:port} or the job's master. */
  String describe();

  @Override
  void close();
}
