package dev.resurfacer.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark 4.1 local[2] + the Iceberg 1.12.0 runtime, against the same restored copy through Iceberg's
 * JdbcCatalog on SQLite, registered under the catalog name the table was created with. Runs
 * {@code CALL cat.system.rewrite_data_files(table => 'db.events')} (bin-pack, every default) and
 * prints timings and the procedure's result. The summary times the whole process, Spark's start
 * included, like the reference anchor.
 *
 * <pre>SparkCompaction --uri jdbc:sqlite:.../catalog.db --warehouse DIR [--catalog bench] [--table db.events]
 *     [--master local[2]] [--strategy binpack] [--sort-order "user_id, ts"]</pre>
 */
public final class SparkCompaction {
  private SparkCompaction() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String cat = a.getOrDefault("catalog", "bench");
    String table = a.getOrDefault("table", "db.events");
    String master = a.getOrDefault("master", "local[2]");

    long t0 = System.nanoTime();
    SparkSession spark = SparkSession.builder()
        .master(master)
        .appName("rewrite_data_files-bench")
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

    String strategy = a.getOrDefault("strategy", "binpack");
    StringBuilder call =
        new StringBuilder("CALL " + cat + ".system.rewrite_data_files(table => '" + table + "'");
    if (!strategy.equals("binpack")) {
      call.append(", strategy => '").append(strategy).append("'");
    }
    if (a.containsKey("sort-order")) {
      call.append(", sort_order => '").append(a.get("sort-order")).append("'");
    }
    call.append(")");
    long t1 = System.nanoTime();
    List<Row> rows = spark.sql(call.toString()).collectAsList();
    long callMs = (System.nanoTime() - t1) / 1_000_000;
    Row r = rows.get(0);
    long rewritten = ((Number) r.getAs("rewritten_data_files_count")).longValue();
    long added = ((Number) r.getAs("added_data_files_count")).longValue();
    long bytes = ((Number) r.getAs("rewritten_bytes_count")).longValue();
    long failed = ((Number) r.getAs("failed_data_files_count")).longValue();
    long outRows =
        spark.sql("SELECT count(*) FROM " + cat + "." + table).first().getLong(0);
    long outBytes = spark
        .sql("SELECT coalesce(sum(file_size_in_bytes), 0) FROM " + cat + "." + table + ".files")
        .first()
        .getLong(0);
    spark.stop();
    long hwm = vmHwm();
    long processMs = ManagementFactory.getRuntimeMXBean().getUptime();
    System.out.printf(
        Locale.ROOT,
        "spark %s: session start %.1f s, %s %.1f s: %d files (%.1f MB) -> %d files (%.1f MB), %d failed; %,d rows; peak RSS %.1f MB%n",
        master,
        startMs / 1000.0,
        call,
        callMs / 1000.0,
        rewritten,
        bytes / 1048576.0,
        added,
        outBytes / 1048576.0,
        failed,
        outRows,
        hwm / 1048576.0);
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=spark ok=%s start_ms=%d compaction_ms=%d process_ms=%d rows=%d input_files=%d input_bytes=%d"
            + " output_files=%d output_bytes=%d peak_rss=%d vmhwm=%d%n",
        failed == 0 && rewritten > 0,
        startMs,
        callMs,
        processMs,
        outRows,
        rewritten,
        bytes,
        added,
        outBytes,
        hwm,
        hwm);
  }

  static long vmHwm() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (Exception ignored) {
      // not Linux
    }
    return -1;
  }
}
