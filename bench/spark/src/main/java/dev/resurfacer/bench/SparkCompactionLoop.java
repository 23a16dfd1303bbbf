package dev.resurfacer.bench;

import java.io.PrintWriter;
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
 * Spark 4.1 local[2] + the Iceberg 1.12.0 runtime running {@code rewrite_data_files} over and over
 * for MINUTES against a table a CDC writer changes meanwhile (the compaction-beside-a-writer
 * benchmark). One session for the whole loop, so Spark's start is paid once. Each call's outcome
 * (files rewritten, or the exception that failed its commit) is a CSV line.
 *
 * <pre>SparkCompactionLoop --uri jdbc:sqlite:.../catalog.db --warehouse DIR --table db.cdc --minutes 5 --csv OUT.csv
 *     [--options "'min-input-files','2'"] [--pause-seconds 5]</pre>
 */
public final class SparkCompactionLoop {
  private SparkCompactionLoop() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String cat = a.getOrDefault("catalog", "bench");
    String table = a.getOrDefault("table", "db.cdc");
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "5")) * 60);
    String options = a.getOrDefault("options", "'min-input-files','2'");
    long pauseMillis = Math.round(Double.parseDouble(a.getOrDefault("pause-seconds", "5")) * 1000);
    SparkSession spark = SparkSession.builder()
        .master(a.getOrDefault("master", "local[2]"))
        .appName("rewrite_data_files-cdc-loop")
        .config("spark.ui.enabled", "false")
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog." + cat, "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog." + cat + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
        .config("spark.sql.catalog." + cat + ".uri", a.get("uri"))
        .config("spark.sql.catalog." + cat + ".warehouse", a.get("warehouse"))
        .config("spark.sql.catalog." + cat + ".cache-enabled", "false")
        .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    String call = "CALL " + cat + ".system.rewrite_data_files(table => '" + table
        + "', options => map(" + options + "))";
    long start = System.nanoTime();
    int ok = 0;
    int failed = 0;
    long rewrittenFiles = 0;
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(a.get("csv"))))) {
      out.println("elapsed_s,outcome,rewritten_files,added_files,seconds,message");
      while ((System.nanoTime() - start) / 1_000_000_000L < seconds) {
        long t0 = System.nanoTime();
        String outcome;
        long rewritten = 0, added = 0;
        String message = "";
        try {
          List<Row> rows = spark.sql(call).collectAsList();
          Row r = rows.get(0);
          rewritten = ((Number) r.getAs("rewritten_data_files_count")).longValue();
          added = ((Number) r.getAs("added_data_files_count")).longValue();
          outcome = rewritten > 0 ? "committed" : "nothing";
          if (rewritten > 0) {
            ok++;
            rewrittenFiles += rewritten;
          }
        } catch (Exception e) {
          outcome = "failed";
          failed++;
          Throwable root = e;
          while (root.getCause() != null) {
            root = root.getCause();
          }
          message =
              String.valueOf(root.getMessage()).lines().findFirst().orElse("").replace(',', ';');
          if (message.length() > 120) {
            message = message.substring(0, 120);
          }
        }
        double took = (System.nanoTime() - t0) / 1e9;
        out.printf(
            Locale.ROOT,
            "%d,%s,%d,%d,%.1f,%s%n",
            (System.nanoTime() - start) / 1_000_000_000L,
            outcome,
            rewritten,
            added,
            took,
            message);
        out.flush();
        Thread.sleep(pauseMillis);
      }
    }
    spark.stop();
    double cpu =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime()
            / 1e9;
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=spark calls_committed=%d calls_failed=%d rewritten_files=%d process_cpu_s=%.1f%n",
        ok,
        failed,
        rewrittenFiles,
        cpu);
  }
}
