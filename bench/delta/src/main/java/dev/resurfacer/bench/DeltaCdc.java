package dev.resurfacer.bench;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The Delta side of the compaction-beside-a-CDC-writer benchmark (bench/run-cdc-delta.sh), delta-spark
 * 4.1.0 on Spark 4.1.0 local[2] with deletion vectors on, one session per process as in {@link DeltaSpark}.
 *
 * <pre>
 * DeltaCdc create   --table DIR [--partitions 4] [--files 30] [--rows 300]
 * DeltaCdc writer   --tables DIR,DIR --minutes 3 [--rate 1] [--partitions 4 --rows 300 (as created)] [--sample-seconds 10] --csv OUT.csv [--started FILE]
 * DeltaCdc optimize --table DIR --minutes 3 [--pause-seconds 5] --csv OUT.csv [--wait-for FILE]
 * </pre>
 * The writer applies the same change to every table each tick (a DELETE of one row, an UPDATE of one
 * row, or a MERGE that updates one row and inserts one: with deletion vectors on, each re-adds the
 * touched file with a grown vector), retrying a
 * table's change when a concurrent commit wins; at the end it prints each table's row count and
 * content hash, which must be equal: the tables started equal and received the same changes. The
 * writer creates FILE once its first change is committed to every table; the compaction loops wait
 * for it, so no compaction runs before the writer does (a Spark session takes tens of seconds to start).
 */
public final class DeltaCdc {
  private DeltaCdc() {}

  public static void main(String[] args) throws Exception {
    String verb = args[0];
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String first = a.containsKey("table") ? a.get("table") : a.get("tables").split(",")[0];
    SparkSession spark = DeltaSpark.session("delta-cdc-" + verb, a.getOrDefault("master", "local[2]"),
            Path.of(first).toAbsolutePath().getParent())
        // a change touches one row of one small partition: Spark's defaults are sized for big jobs.
        // Delta rebuilds the table's state after every commit in snapshotPartitions (50) tasks and
        // AQE replans each tiny join: on 2 shared cores that made a change take ~25 s, not < 1 s
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.databricks.delta.snapshotPartitions", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.databricks.delta.merge.repartitionBeforeWrite.enabled", "false")
        .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    switch (verb) {
      case "create" -> create(spark, Path.of(a.get("table")).toAbsolutePath().toString(), Integer.parseInt(a.getOrDefault("partitions", "4")),
          Integer.parseInt(a.getOrDefault("files", "30")), Integer.parseInt(a.getOrDefault("rows", "300")));
      case "writer" -> writer(spark, a);
      case "optimize" -> optimize(spark, a);
      default -> throw new IllegalArgumentException("unknown verb " + verb);
    }
    spark.stop();
  }

  private static String ref(String table) {
    return "delta.`" + Path.of(table).toAbsolutePath() + "`";
  }

  /** FILES appends, each one file of ROWS rows per partition; ids are dense, 0 until partitions*files*rows. */
  private static void create(SparkSession spark, String table, int partitions, int files, int rows) {
    String ref = ref(table);
    spark.sql("CREATE TABLE " + ref + " (id BIGINT, v STRING, day STRING) USING delta PARTITIONED BY (day)"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    long perAppend = (long) partitions * rows;
    for (int f = 0; f < files; f++) {
      spark.range(f * perAppend, (f + 1) * perAppend, 1, partitions)
          .selectExpr("id", "concat('v', CAST(id AS STRING)) AS v",
              "concat('d', CAST((id - " + f * perAppend + ") DIV " + rows + " AS STRING)) AS day")
          .write().format("delta").mode(SaveMode.Append).save(table);
    }
    System.out.printf(Locale.ROOT, "RESULT verb=create files=%d rows=%d%n", files(spark, ref), (long) files * perAppend);
  }

  private static void writer(SparkSession spark, Map<String, String> a) throws Exception {
    List<String> refs = new ArrayList<>();
    for (String t : a.get("tables").split(",")) {
      refs.add(ref(t));
    }
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "3")) * 60);
    long tickMillis = Math.round(1000 / Double.parseDouble(a.getOrDefault("rate", "1")));
    long sampleMillis = Math.round(Double.parseDouble(a.getOrDefault("sample-seconds", "10")) * 1000);
    long ids = spark.sql("SELECT max(id) + 1 FROM " + refs.get(0)).first().getLong(0);
    int rows = Integer.parseInt(a.getOrDefault("rows", "300"));
    long perAppend = (long) Integer.parseInt(a.getOrDefault("partitions", "4")) * rows;
    ExecutorService pool = Executors.newFixedThreadPool(refs.size());
    Random random = new Random(31);
    long start = System.nanoTime();
    long nextSample = 0;
    int commits = 0;
    int[] retries = new int[refs.size()];
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(a.get("csv"))))) {
      StringBuilder header = new StringBuilder("elapsed_s,writer_changes");
      for (int i = 0; i < refs.size(); i++) {
        header.append(",files_").append(i).append(",retries_").append(i);
      }
      out.println(header);
      for (int k = 0; elapsedMillis(start) < seconds * 1000; k++) {
        long tick = elapsedMillis(start);
        if (tick >= nextSample) {
          sample(spark, out, refs, tick, commits, retries);
          nextSample += sampleMillis;
        }
        long id = (long) (random.nextDouble() * ids);
        // the row's partition in the predicate, as a CDC job keyed by partition writes it: Spark then plans one partition
        String where = " WHERE day = 'd" + (id % perAppend) / rows + "' AND id = " + id;
        String partition = "d" + (id % perAppend) / rows;
        String sql = switch (k % 3) {
          case 0 -> "DELETE FROM %s" + where;
          case 1 -> "UPDATE %s SET v = concat(v, '-u" + k + "')" + where;
          // an upsert as a CDC job writes it: the matched row updated, a new row inserted
          default -> "MERGE INTO %s t USING (SELECT " + id + " AS id, 'm" + k + "' AS v, '" + partition + "' AS day UNION ALL SELECT "
              + (ids + k) + ", 'm" + k + "', '" + partition + "') s ON t.day = '" + partition + "' AND t.day = s.day AND t.id = s.id"
              + " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *";
        };
        // the same change to every table at once (one Spark job each), so a tick is one change's time, not one per table
        List<CompletableFuture<Void>> applied = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
          int t = i;
          applied.add(CompletableFuture.runAsync(() -> apply(spark, String.format(Locale.ROOT, sql, refs.get(t)), retries, t), pool));
        }
        CompletableFuture.allOf(applied.toArray(CompletableFuture[]::new)).join();
        commits++;
        if (commits == 1 && a.containsKey("started")) {
          Files.writeString(Path.of(a.get("started")), "started\n");
        }
        long wait = tick + tickMillis - elapsedMillis(start);
        if (wait > 0) {
          Thread.sleep(wait);
        }
      }
      sample(spark, out, refs, elapsedMillis(start), commits, retries);
    }
    pool.shutdown();
    StringBuilder r = new StringBuilder("RESULT verb=writer changes=" + commits);
    String firstHash = null;
    boolean equal = true;
    for (int i = 0; i < refs.size(); i++) {
      Row c = spark.sql("SELECT count(*), coalesce(sum(CAST(xxhash64(*) AS DECIMAL(38,0))), 0) FROM " + refs.get(i)).first();
      String hash = c.getLong(0) + ":" + c.get(1);
      equal &= firstHash == null || firstHash.equals(hash);
      firstHash = firstHash == null ? hash : firstHash;
      r.append(String.format(Locale.ROOT, " table%d_rows=%d table%d_hash=%s table%d_retries=%d", i, c.getLong(0), i, c.get(1), i, retries[i]));
    }
    System.out.println(r.append(" content_equal=").append(equal));
  }

  private static void apply(SparkSession spark, String sql, int[] retries, int table) {
    for (int attempt = 1; ; attempt++) {
      long t0 = System.nanoTime();
      try {
        spark.sql(sql).collect();
        // one line per change on stderr: where a tick's time goes (bench/run-cdc-delta.sh keeps it in writer.err)
        System.err.printf(Locale.ROOT, "CHANGE table=%d kind=%s ms=%d attempt=%d%n", table, sql.substring(0, sql.indexOf(' ')),
            (System.nanoTime() - t0) / 1_000_000, attempt);
        return;
      } catch (RuntimeException e) {
        // a compaction (ours or OPTIMIZE) replaced a file this change read: re-read and apply again, as a CDC job would
        if (attempt >= 20 || !(e.getClass().getName() + e.getMessage()).contains("Concurrent")) {
          throw e;
        }
        retries[table]++;
      }
    }
  }

  private static void sample(SparkSession spark, PrintWriter out, List<String> refs, long millis, int commits, int[] retries) {
    StringBuilder line = new StringBuilder().append(millis / 1000).append(',').append(commits);
    for (int i = 0; i < refs.size(); i++) {
      line.append(',').append(files(spark, refs.get(i))).append(',').append(retries[i]);
    }
    out.println(line);
    out.flush();
  }

  private static long files(SparkSession spark, String ref) {
    return ((Number) spark.sql("DESCRIBE DETAIL " + ref).first().getAs("numFiles")).longValue();
  }

  private static void optimize(SparkSession spark, Map<String, String> a) throws Exception {
    String ref = ref(a.get("table"));
    if (a.containsKey("wait-for")) {
      while (!Files.exists(Path.of(a.get("wait-for")))) {
        Thread.sleep(200);
      }
    }
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "3")) * 60);
    long pauseMillis = Math.round(Double.parseDouble(a.getOrDefault("pause-seconds", "5")) * 1000);
    long start = System.nanoTime();
    int ok = 0;
    int failed = 0;
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(a.get("csv"))))) {
      out.println("elapsed_s,outcome,removed_files,added_files,seconds,message");
      while (elapsedMillis(start) < seconds * 1000) {
        long t0 = System.nanoTime();
        String outcome;
        long removed = 0;
        long added = 0;
        String message = "";
        try {
          Row m = spark.sql("OPTIMIZE " + ref).first().getStruct(1);
          removed = ((Number) m.getAs("numFilesRemoved")).longValue();
          added = ((Number) m.getAs("numFilesAdded")).longValue();
          outcome = removed > 0 ? "committed" : "nothing";
          ok += removed > 0 ? 1 : 0;
        } catch (Exception e) {
          outcome = "failed";
          failed++;
          message = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
          message = message.replace(',', ';');
          message = message.length() > 140 ? message.substring(0, 140) : message;
        }
        out.printf(Locale.ROOT, "%d,%s,%d,%d,%.1f,%s%n", elapsedMillis(start) / 1000, outcome, removed, added,
            (System.nanoTime() - t0) / 1e9, message);
        out.flush();
        Thread.sleep(pauseMillis);
      }
    }
    double cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    System.out.printf(Locale.ROOT, "RESULT engine=delta-spark calls_committed=%d calls_failed=%d process_cpu_s=%.1f%n", ok, failed, cpu);
  }

  private static long elapsedMillis(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
