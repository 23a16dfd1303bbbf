package dev.resurfacer.bench;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The anchor for {@code bench/run-small-tables.sh}: one Spark 4.1 local[2] session with the Iceberg
 * 1.12.0 runtime over the fleet SmallTables wrote (catalogs {@code c0…} on SQLite), looping
 * {@code rewrite_data_files}, {@code rewrite_manifests}, {@code expire_snapshots} (older_than =>
 * now, retain_last => 1) and {@code remove_orphan_files} (its 3-day default) over every table. The
 * session is started and warmed on the first table before the clock starts: the figure is the loop.
 *
 * <pre>SparkFleet --dir LIVE [--catalogs 4] [--master local[2]] [--limit N]   (only the first N tables, by name)</pre>
 */
public final class SparkFleet {
  private SparkFleet() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new java.util.LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path dir = Path.of(a.get("dir")).toAbsolutePath().normalize();
    int catalogs = Integer.parseInt(a.getOrDefault("catalogs", "4"));
    long t0 = System.nanoTime();
    SparkSession.Builder b = SparkSession.builder()
        .master(a.getOrDefault("master", "local[2]"))
        .appName("fleet-bench")
        .config("spark.ui.enabled", "false")
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    for (int c = 0; c < catalogs; c++) {
      Path cd = dir.resolve("c" + c);
      b.config("spark.sql.catalog.c" + c, "org.apache.iceberg.spark.SparkCatalog")
          .config(
              "spark.sql.catalog.c" + c + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
          .config("spark.sql.catalog.c" + c + ".uri", "jdbc:sqlite:" + cd.resolve("catalog.db"))
          .config(
              "spark.sql.catalog.c" + c + ".warehouse", cd.resolve("warehouse").toString());
    }
    SparkSession spark = b.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    List<String[]> tables = new java.util.ArrayList<>();
    for (int c = 0; c < catalogs; c++) {
      for (Row r : spark.sql("SHOW TABLES IN c" + c + ".db").collectAsList()) {
        tables.add(new String[] {"c" + c, "db." + r.getString(1)});
      }
    }
    tables.sort(java.util.Comparator.comparing(t -> t[1]));
    if (a.containsKey("limit")) {
      tables = tables.subList(0, Math.min(tables.size(), Integer.parseInt(a.get("limit"))));
    }
    long startMs = (System.nanoTime() - t0) / 1_000_000;
    // warm: the first table's four procedures load and compile what the loop then reuses
    maintain(spark, tables.get(0));
    long t1 = System.nanoTime();
    for (String[] t : tables.subList(1, tables.size())) {
      long s0 = System.nanoTime();
      maintain(spark, t);
      System.out.printf(
          Locale.ROOT, "table %s.%s %d ms%n", t[0], t[1], (System.nanoTime() - s0) / 1_000_000);
      System.out.flush();
    }
    long loopMs = (System.nanoTime() - t1) / 1_000_000;
    spark.stop();
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=spark tables_timed=%d start_ms=%d warm_table_ms=%d loop_ms=%d per_table_ms=%d%n",
        tables.size() - 1,
        startMs,
        (t1 - t0) / 1_000_000 - startMs,
        loopMs,
        loopMs / Math.max(1, tables.size() - 1));
  }

  private static void maintain(SparkSession spark, String[] t) {
    String cat = t[0];
    // fully qualified: a bare db.t resolves against the session's catalog, not the procedure's
    String table = t[0] + "." + t[1];
    spark
        .sql("CALL " + cat + ".system.rewrite_data_files(table => '" + table + "')")
        .collectAsList();
    spark
        .sql("CALL " + cat + ".system.rewrite_manifests(table => '" + table + "')")
        .collectAsList();
    String now = LocalDateTime.now()
        .plusSeconds(1)
        .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"));
    spark
        .sql("CALL " + cat + ".system.expire_snapshots(table => '" + table
            + "', older_than => TIMESTAMP '" + now + "', retain_last => 1)")
        .collectAsList();
    spark
        .sql("CALL " + cat + ".system.remove_orphan_files(table => '" + table + "')")
        .collectAsList();
  }
}
