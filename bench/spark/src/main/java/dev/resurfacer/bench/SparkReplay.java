package dev.resurfacer.bench;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Replays a fixed query mix against the benchmark table through Spark 4.1 + the Iceberg runtime with
 * the scan-report collector as the catalog's metrics reporter (it is on this JVM's class path only
 * as the jar users would drop there). Every query is planned (Iceberg's scan planning: the files a
 * query reads); every {@code --execute-every}-th is also run, and Spark's own scan metric
 * ({@code resultDataFiles} of the Iceberg scan node) is summed for those, to check against the reports.
 *
 * <p>The mix: user_id equality in 70% of queries, a one-hour ts range in 50%, an event in 10%; every
 * query has at least one of the first two (so 50% user_id only, 30% ts only, 20% both).
 *
 * <pre>SparkReplay --uri jdbc:sqlite:.../catalog.db --warehouse DIR --reports DIR [--queries 300] [--seed 11]
 *     [--execute-every 20] [--catalog bench] [--table db.events]</pre>
 */
public final class SparkReplay {
  static final String[] EVENTS = {
    "view", "click", "add_to_cart", "remove_from_cart", "checkout", "purchase", "search", "login"
  };
  static final LocalDateTime START = LocalDateTime.of(2026, 10, 1, 0, 0);
  static final int DAYS = 4;

  private SparkReplay() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String cat = a.getOrDefault("catalog", "bench");
    String table = cat + "." + a.getOrDefault("table", "db.events");
    int n = Integer.parseInt(a.getOrDefault("queries", "300"));
    int executeEvery = Integer.parseInt(a.getOrDefault("execute-every", "20"));
    SparkSession spark = SparkSession.builder()
        .master(a.getOrDefault("master", "local[2]"))
        .appName("scan-report-replay")
        .config("spark.ui.enabled", "false")
        // plans are built, not run, for most queries: adaptive execution would run stages to plan
        // them
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.catalog." + cat, "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog." + cat + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
        .config("spark.sql.catalog." + cat + ".uri", a.get("uri"))
        .config("spark.sql.catalog." + cat + ".warehouse", a.get("warehouse"))
        .config(
            "spark.sql.catalog." + cat + ".metrics-reporter-impl",
            "dev.resurfacer.scanreports.ScanReportCollector")
        .config("spark.sql.catalog." + cat + ".resurfacer.scan-reports.dir", a.get("reports"))
        .config("spark.sql.catalog." + cat + ".resurfacer.scan-reports.filter-values", "true")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    List<String> queries = queries(table, n, Long.parseLong(a.getOrDefault("seed", "11")));
    long t0 = System.nanoTime();
    long executed = 0;
    long sparkFiles = 0;
    for (int i = 0; i < queries.size(); i++) {
      var df = spark.sql(queries.get(i));
      if (executeEvery > 0 && i % executeEvery == 0) {
        df.collectAsList();
        executed++;
        sparkFiles += resultDataFiles(df.queryExecution().executedPlan());
      } else {
        // builds the RDDs, which plans the Iceberg scan (and reports it), without running a job
        df.queryExecution().executedPlan().execute();
      }
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    spark.stop();
    System.out.printf(
        Locale.ROOT,
        "RESULT replay queries=%d ms=%d executed=%d spark_result_data_files_executed=%d%n",
        n,
        ms,
        executed,
        sparkFiles);
  }

  /** Spark's own count of the data files the Iceberg scan read (its custom scan metric). */
  static long resultDataFiles(SparkPlan plan) {
    long sum = 0;
    var metric = plan.metrics().get("resultDataFiles");
    if (metric.isDefined()) {
      sum += metric.get().value();
    }
    var children = plan.children();
    for (int i = 0; i < children.size(); i++) {
      sum += resultDataFiles(children.apply(i));
    }
    return sum;
  }

  static List<String> queries(String table, int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double u = rnd.nextDouble();
      List<String> where = new ArrayList<>();
      if (u < 0.7) {
        where.add("user_id = " + rnd.nextInt(1_000_000));
      }
      if (u >= 0.5) {
        LocalDateTime from = START.plusSeconds(rnd.nextLong(DAYS * 86_400L - 3_600));
        where.add("ts >= TIMESTAMP_NTZ '" + f.format(from) + "' AND ts < TIMESTAMP_NTZ '"
            + f.format(from.plusHours(1)) + "'");
      }
      if (rnd.nextDouble() < 0.1) {
        where.add("event = '" + EVENTS[rnd.nextInt(EVENTS.length)] + "'");
      }
      out.add(
          "SELECT count(*), sum(amount) FROM " + table + " WHERE " + String.join(" AND ", where));
    }
    return out;
  }
}
