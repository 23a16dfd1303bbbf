package dev.resurfacer.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * delta-spark 4.1.0 on Spark 4.1.0, local[2], one verb per process so each is timed with its JVM and
 * Spark start, like our CLI. Every verb prints one {@code RESULT} line.
 *
 * <pre>
 * DeltaSpark generate --table DIR [--rows 10000000] [--files 1000] [--days 4] [--commits 10]
 * DeltaSpark optimize --table DIR [--zorder a,b]
 * DeltaSpark vacuum --table DIR [--retain-hours 0]
 * DeltaSpark check --table DIR          row count and content hash of the current version
 * </pre>
 */
public final class DeltaSpark {
  private DeltaSpark() {}

  /** One column per common type; a, b are the z-order keys. Day d holds the rows of every file whose index is d mod days. */
  private static final String[] COLUMNS = {
    "id",
    "pmod(xxhash64(id, 1), 1000000) AS a",
    "pmod(xxhash64(id, 2), 1000000) AS b",
    "element_at(array('view','click','buy','cart','search','login','logout','share'), CAST(pmod(xxhash64(id, 3), 8) AS INT) + 1) AS event",
    "timestamp_seconds(1767225600 + pmod(xxhash64(id, 4), 86400)) AS ts",
    "CAST(pmod(xxhash64(id, 5), 100000000) / 100 AS DECIMAL(12,2)) AS amount",
    "concat('c', CAST(pmod(xxhash64(id, 6), 16) AS STRING)) AS country",
    "concat('https://example.com/p/', CAST(pmod(xxhash64(id, 7), 100000) AS STRING), '?s=', CAST(id % 997 AS STRING)) AS url",
    "CAST(pmod(xxhash64(id, 8), 1000000) AS DOUBLE) / 1000 AS score",
  };

  public static void main(String[] args) throws Exception {
    String verb = args[0];
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String table = Path.of(a.get("table")).toAbsolutePath().toString();
    long t0 = System.nanoTime();
    SparkSession spark = session(
            "delta-bench-" + verb,
            a.getOrDefault("master", "local[2]"),
            Path.of(table).getParent())
        // the vacuum benchmark runs at RETAIN 0 HOURS (files are minutes old); Delta refuses that
        // without this
        .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    long startMs = ms(t0);
    String ref = "delta.`" + table + "`";
    long t1 = System.nanoTime();
    String detail = switch (verb) {
      case "generate" ->
        generate(
            spark,
            table,
            Long.parseLong(a.getOrDefault("rows", "10000000")),
            Integer.parseInt(a.getOrDefault("files", "1000")),
            Integer.parseInt(a.getOrDefault("days", "4")),
            Integer.parseInt(a.getOrDefault("commits", "10")));
      case "optimize" -> {
        String sql = "OPTIMIZE " + ref
            + (a.containsKey("zorder") ? " ZORDER BY (" + a.get("zorder") + ")" : "");
        Row m = spark.sql(sql).first().getStruct(1);
        yield "sql=\"" + sql + "\" removed_files=" + m.getAs("numFilesRemoved") + " added_files="
            + m.getAs("numFilesAdded");
      }
      case "vacuum" -> {
        String sql = "VACUUM " + ref + " RETAIN " + a.getOrDefault("retain-hours", "0") + " HOURS";
        spark.sql(sql).collect();
        yield "sql=\"" + sql + "\"";
      }
      case "check" -> "";
      default -> throw new IllegalArgumentException("unknown verb " + verb);
    };
    long opMs = ms(t1);
    if (verb.equals("optimize") || verb.equals("vacuum")) {
      // timed verbs stop here: the content check is a separate, untimed process (verb check)
      spark.stop();
      System.out.printf(
          Locale.ROOT,
          "RESULT verb=%s start_ms=%d op_ms=%d process_ms=%d vmhwm=%d %s%n",
          verb,
          startMs,
          opMs,
          ManagementFactory.getRuntimeMXBean().getUptime(),
          vmHwm(),
          detail);
      return;
    }
    Row c = spark
        .sql("SELECT count(*), coalesce(sum(CAST(xxhash64(*) AS DECIMAL(38,0))), 0) FROM " + ref)
        .first();
    Row d = spark.sql("DESCRIBE DETAIL " + ref).first();
    long files = ((Number) d.getAs("numFiles")).longValue();
    long bytes = ((Number) d.getAs("sizeInBytes")).longValue();
    spark.stop();
    System.out.printf(
        Locale.ROOT,
        "RESULT verb=%s start_ms=%d op_ms=%d process_ms=%d rows=%d content_hash=%s files=%d bytes=%d vmhwm=%d %s%n",
        verb,
        startMs,
        opMs,
        ManagementFactory.getRuntimeMXBean().getUptime(),
        c.getLong(0),
        c.get(1),
        files,
        bytes,
        vmHwm(),
        detail);
  }

  /** A local delta-spark session builder: the Delta extension and catalog on, no UI, the warehouse in DIR/spark-warehouse. */
  static SparkSession.Builder session(String app, String master, Path dir) {
    return SparkSession.builder()
        .master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.warehouse.dir", dir.resolve("spark-warehouse").toString());
  }

  private static String generate(
      SparkSession spark, String table, long rows, int files, int days, int commits) {
    long perCommit = rows / commits;
    int filesPerCommit = files / commits;
    long perFile = perCommit / filesPerCommit;
    String[] cols = COLUMNS.clone();
    for (int c = 0; c < commits; c++) {
      // range slices are contiguous id blocks of perFile rows, so each slice (one task, one file)
      // holds one day
      spark
          .range(c * perCommit, (c + 1) * perCommit, 1, filesPerCommit)
          .selectExpr(withDay(cols, perFile, days))
          .write()
          .format("delta")
          .mode(SaveMode.Append)
          .partitionBy("day")
          .save(table);
    }
    return "commits=" + commits;
  }

  private static String[] withDay(String[] cols, long perFile, int days) {
    String[] out = java.util.Arrays.copyOf(cols, cols.length + 1);
    out[cols.length] =
        "date_add(DATE'2026-01-01', CAST((id DIV " + perFile + ") % " + days + " AS INT)) AS day";
    return out;
  }

  private static long ms(long since) {
    return (System.nanoTime() - since) / 1_000_000;
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
