package dev.resurfacer.bench;

import java.lang.management.ManagementFactory;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark 4.1 local[2] + the Iceberg 1.12.0 runtime: {@code expire_snapshots} (older_than => now,
 * retain_last => 1) or {@code remove_orphan_files} (default 3-day older_than) on the same restored
 * table, through Iceberg's JdbcCatalog on SQLite. Prints the procedure's output and a RESULT line.
 *
 * <pre>SparkMaintenance --uri jdbc:sqlite:.../catalog.db --warehouse DIR --op expire|orphans
 *     [--catalog bench] [--table db.events] [--master local[2]]</pre>
 */
public final class SparkMaintenance {
  private SparkMaintenance() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String cat = a.getOrDefault("catalog", "bench");
    String table = a.getOrDefault("table", "db.events");
    String master = a.getOrDefault("master", "local[2]");
    String op = a.getOrDefault("op", "expire");

    long t0 = System.nanoTime();
    SparkSession spark = SparkSession.builder()
        .master(master)
        .appName(op + "-bench")
        .config("spark.ui.enabled", "false")
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog." + cat, "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog." + cat + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
        .config("spark.sql.catalog." + cat + ".uri", a.get("uri"))
        .config("spark.sql.catalog." + cat + ".warehouse", a.get("warehouse"))
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    long startMs = (System.nanoTime() - t0) / 1_000_000;
    long before = spark
        .sql("SELECT count(*) FROM " + cat + "." + table + ".snapshots")
        .first()
        .getLong(0);

    String call;
    if (op.equals("expire")) {
      // the session time zone is the JVM's, so a local timestamp literal of "now" means now
      String now = LocalDateTime.now()
          .plusSeconds(1)
          .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"));
      call = "CALL " + cat + ".system.expire_snapshots(table => '" + table
          + "', older_than => TIMESTAMP '" + now + "', retain_last => 1)";
    } else if (op.equals("orphans")) {
      call = "CALL " + cat + ".system.remove_orphan_files(table => '" + table + "')";
    } else {
      throw new IllegalArgumentException("--op expire|orphans");
    }
    long t1 = System.nanoTime();
    List<Row> rows = spark.sql(call).collectAsList();
    long opMs = (System.nanoTime() - t1) / 1_000_000;
    String detail;
    if (op.equals("expire")) {
      Row r = rows.get(0);
      StringBuilder sb = new StringBuilder();
      long total = 0;
      for (String f : r.schema().fieldNames()) {
        Object v = r.getAs(f);
        sb.append(' ').append(f).append('=').append(v);
        if (v instanceof Number n && f.startsWith("deleted_")) {
          total += n.longValue();
        }
      }
      long after = spark
          .sql("SELECT count(*) FROM " + cat + "." + table + ".snapshots")
          .first()
          .getLong(0);
      detail = "op=expire snapshots_before=" + before + " expired=" + (before - after)
          + " deleted_files=" + total;
      System.out.println("spark expire_snapshots:" + sb);
    } else {
      detail = "op=orphans deleted=" + rows.size();
    }
    spark.stop();
    long hwm = SparkCompaction.vmHwm();
    System.out.printf(
        Locale.ROOT,
        "spark %s: session start %.1f s, %s %.1f s; %s; max heap %.0f MB, peak RSS %.1f MB%n",
        master,
        startMs / 1000.0,
        call,
        opMs / 1000.0,
        detail,
        Runtime.getRuntime().maxMemory() / 1048576.0,
        hwm / 1048576.0);
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=spark %s start_ms=%d op_ms=%d process_ms=%d vmhwm=%d max_heap=%d%n",
        detail,
        startMs,
        opMs,
        ManagementFactory.getRuntimeMXBean().getUptime(),
        hwm,
        Runtime.getRuntime().maxMemory());
  }
}
