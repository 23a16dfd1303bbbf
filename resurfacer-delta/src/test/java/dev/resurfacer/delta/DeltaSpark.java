package dev.resurfacer.delta;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * delta-spark in this JVM, the oracle: it writes the test tables and reads them back. One session
 * for the whole test run (its start costs seconds).
 */
public final class DeltaSpark {
  private static SparkSession session;

  private DeltaSpark() {}

  public static synchronized SparkSession session() {
    if (session == null) {
      session = SparkSession.builder()
          .master("local[2]")
          .appName("resurfacer-delta-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "1")
          .config("spark.default.parallelism", "1")
          .config("spark.databricks.delta.snapshotPartitions", "1")
          .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "1")
          .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
          .config(
              "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
          .config(
              "spark.sql.warehouse.dir",
              System.getProperty("java.io.tmpdir") + "/resurfacer-delta-spark-wh")
          .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
          .getOrCreate();
    }
    return session;
  }

  /**
   * A session of the same Spark context set up for a CDC writer's small statements. A one-row
   * change spent most of its time compiling generated code, materialising a MERGE's source and
   * rewriting the checksum file: 2.4 s a change on an idle machine, 1.4 s without.
   */
  public static synchronized SparkSession cdcWriterSession() {
    SparkSession writer = session().newSession();
    writer.conf().set("spark.sql.codegen.wholeStage", "false");
    writer.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
    writer.conf().set("spark.databricks.delta.writeChecksumFile.enabled", "false");
    writer.conf().set("spark.databricks.delta.merge.materializeSource", "none");
    writer.conf().set("spark.databricks.delta.history.metricsEnabled", "false");
    return writer;
  }

  public static void sql(String sql) {
    session().sql(sql).collect();
  }

  public static String table(Path dir) {
    return table(dir.toAbsolutePath().toString());
  }

  /** A table by location, a local path or a URI such as {@code s3a://bucket/path}. */
  public static String table(String location) {
    return "delta.`" + location + "`";
  }

  /** Every row of the table (at {@code version}, or the latest when negative), as sorted strings: order-independent content. */
  public static List<String> rows(Path dir, long version) {
    String from = table(dir) + (version >= 0 ? " VERSION AS OF " + version : "");
    List<Row> rows = session().sql("SELECT * FROM " + from).collectAsList();
    return rows.stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  public static List<String> rows(Path dir) {
    return rows(dir, -1);
  }

  /** Every row of the latest version as sorted strings whose every value carries its Spark type, e.g. {@code id:bigint=7}. */
  public static List<String> typedRows(Path dir) {
    return typedRows(dir.toAbsolutePath().toString());
  }

  /** As {@link #typedRows(Path)} for a table by location. */
  public static List<String> typedRows(String location) {
    var df = session().sql("SELECT * FROM " + table(location));
    var fields = df.schema().fields();
    return df.collectAsList().stream()
        .map(r -> {
          StringBuilder b = new StringBuilder();
          for (int i = 0; i < fields.length; i++) {
            b.append(fields[i].name())
                .append(':')
                .append(fields[i].dataType().simpleString())
                .append('=')
                .append(
                    r.isNullAt(i)
                        ? "null"
                        : r.get(i) + "/" + r.get(i).getClass().getSimpleName())
                .append(' ');
          }
          return b.toString();
        })
        .sorted()
        .collect(Collectors.toList());
  }
}
