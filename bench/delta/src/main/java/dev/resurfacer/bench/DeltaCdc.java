package dev.resurfacer.bench;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The Delta side of the compaction-beside-a-CDC-writer benchmark (bench/run-cdc-delta.sh), delta-spark
 * 4.1.0 on Spark 4.1.0 local[2] with deletion vectors on, one session per process as in {@link DeltaSpark}.
 *
 * <pre>
 * DeltaCdc create   --table DIR [--partitions 4] [--files 30] [--rows 300]
 * DeltaCdc writer   --table DIR --minutes 3 [--rate 1] [--threads 2] [--sample-seconds 10] --csv OUT.csv [--started FILE]
 * DeltaCdc optimize --table DIR --minutes 3 [--pause-seconds 5] --csv OUT.csv [--wait-for FILE]
 * </pre>
 * The writer makes RATE changes a second at most (a DELETE of one row, an UPDATE of one row, or a
 * MERGE that updates one row and inserts one: with deletion vectors on, each re-adds the touched file
 * with a grown vector), from THREADS threads on disjoint partitions, retrying a change when a
 * concurrent commit wins; it keeps a model of the rows, and at the end prints whether the table read
 * by delta-spark equals it. It creates FILE once its first change is committed; the compaction loop
 * waits for it, so no compaction runs before the writer does (a Spark session takes tens of seconds).
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
    SparkSession.Builder builder = DeltaSpark.session(
            "delta-cdc-" + verb,
            a.getOrDefault("master", "local[2]"),
            Path.of(first).toAbsolutePath().getParent())
        // a change touches one row of one small partition: Spark's defaults are sized for big jobs.
        // Delta rebuilds the table's state after every commit in snapshotPartitions (50) tasks and
        // AQE replans each tiny join: on 2 shared cores that made a change take ~25 s, not < 1 s
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.databricks.delta.snapshotPartitions", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.databricks.delta.merge.repartitionBeforeWrite.enabled", "false")
        // two processes commit to one table on local disk: Hadoop's checksum file system renames a
        // losing commit attempt's hidden .crc over the winning entry's name, and the next read of
        // that
        // entry fails its checksum (seen at 2 changes a second); the raw local file system has no
        // .crc
        .config("spark.hadoop.fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")
        .config(
            "spark.hadoop.fs.AbstractFileSystem.file.impl", "org.apache.hadoop.fs.local.RawLocalFs")
        .config("spark.hadoop.fs.file.impl.disable.cache", "true");
    if (verb.equals("writer")) {
      // a one-row change spent more time compiling generated code, materialising MERGE's two-row
      // source and rewriting the .crc checksum than touching data: 2.4 s a change, 1.4 s without
      builder
          .config("spark.sql.codegen.wholeStage", "false")
          .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
          .config("spark.databricks.delta.writeChecksumFile.enabled", "false")
          .config("spark.databricks.delta.merge.materializeSource", "none")
          .config("spark.databricks.delta.history.metricsEnabled", "false");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    switch (verb) {
      case "create" ->
        create(
            spark,
            Path.of(a.get("table")).toAbsolutePath().toString(),
            Integer.parseInt(a.getOrDefault("partitions", "4")),
            Integer.parseInt(a.getOrDefault("files", "30")),
            Integer.parseInt(a.getOrDefault("rows", "300")));
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
  private static void create(
      SparkSession spark, String table, int partitions, int files, int rows) {
    String ref = ref(table);
    spark.sql("CREATE TABLE " + ref
        + " (id BIGINT, v STRING, day STRING) USING delta PARTITIONED BY (day)"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    long perAppend = (long) partitions * rows;
    for (int f = 0; f < files; f++) {
      spark
          .range(f * perAppend, (f + 1) * perAppend, 1, partitions)
          .selectExpr(
              "id",
              "concat('v', CAST(id AS STRING)) AS v",
              "concat('d', CAST((id - " + f * perAppend + ") DIV " + rows + " AS STRING)) AS day")
          .write()
          .format("delta")
          .mode(SaveMode.Append)
          .save(table);
    }
    System.out.printf(
        Locale.ROOT,
        "RESULT verb=create files=%d rows=%d%n",
        files(spark, ref),
        (long) files * perAppend);
  }

  /**
   * THREADS threads, each owning the partitions whose index is its number modulo THREADS, so their
   * changes never conflict with each other (Delta checks a transaction's reads by partition); together
   * they make RATE changes a second at most. Every change is applied to the model too (id to value and
   * partition) once committed, and at the end the table, read by delta-spark, must equal it row for row.
   */
  private static void writer(SparkSession spark, Map<String, String> a) throws Exception {
    String ref = ref(a.get("table"));
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "3")) * 60);
    int threads = Integer.parseInt(a.getOrDefault("threads", "2"));
    long tickMillis = Math.round(1000 * threads / Double.parseDouble(a.getOrDefault("rate", "1")));
    long sampleMillis =
        Math.round(Double.parseDouble(a.getOrDefault("sample-seconds", "10")) * 1000);
    Map<Long, Row> model = new ConcurrentHashMap<>();
    Map<String, List<Long>> idsByDay = new ConcurrentHashMap<>();
    for (Row r : spark.sql("SELECT id, v, day FROM " + ref).collectAsList()) {
      model.put(r.getLong(0), r);
      idsByDay
          .computeIfAbsent(r.getString(2), d -> Collections.synchronizedList(new ArrayList<>()))
          .add(r.getLong(0));
    }
    List<String> days = new ArrayList<>(new TreeSet<>(idsByDay.keySet()));
    AtomicLong nextId =
        new AtomicLong(model.keySet().stream().mapToLong(Long::longValue).max().orElse(-1) + 1);
    AtomicInteger changes = new AtomicInteger();
    AtomicInteger retries = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<String> own = new ArrayList<>();
      for (int d = t; d < days.size(); d += threads) {
        own.add(days.get(d));
      }
      Random random = new Random(31 + t);
      Thread w = new Thread(
          () -> {
            try {
              for (int k = 0; elapsedMillis(start) < seconds * 1000 && failure.get() == null; k++) {
                long tick = elapsedMillis(start);
                String day = own.get(random.nextInt(own.size()));
                List<Long> ids = idsByDay.get(day);
                long id = ids.get(random.nextInt(ids.size()));
                String tag = "-" + Thread.currentThread().getName() + "." + k;
                // the row's partition in the predicate, as a CDC job keyed by partition writes it:
                // Spark then plans one partition
                String where = " WHERE day = '" + day + "' AND id = " + id;
                switch (k % 3) {
                  case 0 -> {
                    apply(spark, "DELETE FROM " + ref + where, retries);
                    model.remove(id);
                    ids.remove(Long.valueOf(id));
                  }
                  case 1 -> {
                    apply(
                        spark,
                        "UPDATE " + ref + " SET v = concat(v, '" + tag + "')" + where,
                        retries);
                    Row r = model.get(id);
                    model.put(id, RowFactory.create(id, r.getString(1) + tag, day));
                  }
                  default -> {
                    // an upsert as a CDC job writes it: the matched row updated, a new row inserted
                    long added = nextId.getAndIncrement();
                    String v = "m" + tag;
                    apply(
                        spark,
                        "MERGE INTO " + ref + " t USING (SELECT " + id + " AS id, '" + v
                            + "' AS v, '" + day + "' AS day UNION ALL SELECT "
                            + added + ", '" + v + "', '" + day + "') s ON t.day = '" + day
                            + "' AND t.day = s.day AND t.id = s.id"
                            + " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
                        retries);
                    model.put(id, RowFactory.create(id, v, day));
                    model.put(added, RowFactory.create(added, v, day));
                    ids.add(added);
                  }
                }
                if (changes.incrementAndGet() == 1 && a.containsKey("started")) {
                  Files.writeString(Path.of(a.get("started")), "started\n");
                }
                long wait = tick + tickMillis - elapsedMillis(start);
                if (wait > 0) {
                  Thread.sleep(wait);
                }
              }
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          },
          "w" + t);
      w.start();
      workers.add(w);
    }
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(a.get("csv"))))) {
      out.println("elapsed_s,writer_changes,files,retries");
      while (workers.stream().anyMatch(Thread::isAlive)) {
        out.printf(
            Locale.ROOT,
            "%d,%d,%d,%d%n",
            elapsedMillis(start) / 1000,
            changes.get(),
            files(spark, ref),
            retries.get());
        out.flush();
        for (Thread w : workers) {
          w.join(Math.max(1, sampleMillis / workers.size()));
        }
      }
      out.printf(
          Locale.ROOT,
          "%d,%d,%d,%d%n",
          elapsedMillis(start) / 1000,
          changes.get(),
          files(spark, ref),
          retries.get());
    }
    if (failure.get() != null) {
      throw new IllegalStateException("the writer stopped", failure.get());
    }
    double elapsed = elapsedMillis(start) / 1000.0;
    Map<Long, Row> read = new HashMap<>();
    for (Row r : spark.sql("SELECT id, v, day FROM " + ref).collectAsList()) {
      read.put(r.getLong(0), r);
    }
    long differing = model.entrySet().stream()
            .filter(e -> !e.getValue().equals(read.get(e.getKey())))
            .count()
        + read.keySet().stream().filter(id -> !model.containsKey(id)).count();
    System.out.printf(
        Locale.ROOT,
        "RESULT verb=writer changes=%d seconds=%.0f changes_per_s=%.2f retries=%d rows=%d model_rows=%d"
            + " rows_differing_from_model=%d equals_model=%b%n",
        changes.get(),
        elapsed,
        changes.get() / elapsed,
        retries.get(),
        read.size(),
        model.size(),
        differing,
        differing == 0);
  }

  private static void apply(SparkSession spark, String sql, AtomicInteger retries) {
    for (int attempt = 1; ; attempt++) {
      long t0 = System.nanoTime();
      try {
        spark.sql(sql).collect();
        // one line per change on stderr: where a tick's time goes (bench/run-cdc-delta.sh keeps it
        // in writer-*.err)
        System.err.printf(
            Locale.ROOT,
            "CHANGE thread=%s kind=%s ms=%d attempt=%d%n",
            Thread.currentThread().getName(),
            sql.substring(0, sql.indexOf(' ')),
            (System.nanoTime() - t0) / 1_000_000,
            attempt);
        return;
      } catch (RuntimeException e) {
        // a compaction (ours or OPTIMIZE) replaced a file this change read: re-read and apply
        // again, as a CDC job would
        if (attempt >= 20 || !(e.getClass().getName() + e.getMessage()).contains("Concurrent")) {
          throw e;
        }
        retries.incrementAndGet();
      }
    }
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
          message = e.getClass().getSimpleName() + ": "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
          message = message.replace(',', ';');
          message = message.length() > 140 ? message.substring(0, 140) : message;
        }
        out.printf(
            Locale.ROOT,
            "%d,%s,%d,%d,%.1f,%s%n",
            elapsedMillis(start) / 1000,
            outcome,
            removed,
            added,
            (System.nanoTime() - t0) / 1e9,
            message);
        out.flush();
        Thread.sleep(pauseMillis);
      }
    }
    double cpu =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime()
            / 1e9;
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=delta-spark calls_committed=%d calls_failed=%d process_cpu_s=%.1f%n",
        ok,
        failed,
        cpu);
  }

  private static long elapsedMillis(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
