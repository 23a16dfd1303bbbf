package dev.resurfacer.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A streaming writer at a fixed commit rate into one table per lane (each lane its own SQLite
 * catalog under {@code DIR/LANE}), sampling every lane's live data files, small data files and
 * query-planning time ({@code planFiles} wall time, after loading the table afresh; the load is
 * timed apart) on an interval.
 * All lanes are written and sampled by the same process at the same moments, so a lane that
 * {@code serve} maintains and one left alone see the same machine load.
 *
 * <pre>StreamingBench --dir DIR --lanes plain,served --rate 1 --minutes 10 --sample-seconds 10 --rows 200 --csv OUT.csv</pre>
 *
 * {@code --create true} only creates the tables (so {@code serve} can start on them) and exits.
 */
public final class StreamingBench {
  /** The threshold {@code describe} and serve's {@code small-files} trigger use: under 75% of the target size. */
  static final double SMALL_FRACTION = 0.75;

  private StreamingBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path dir =
        Path.of(a.getOrDefault("dir", "bench/work/streaming")).toAbsolutePath().normalize();
    List<String> lanes = List.of(a.getOrDefault("lanes", "plain,served").split(","));
    if (Boolean.parseBoolean(a.getOrDefault("create", "false"))) {
      for (String lane : lanes) {
        try (JdbcCatalog catalog = BenchTable.open(dir.resolve(lane))) {
          catalog.createNamespace(Namespace.of("db"));
          catalog.createTable(
              TableIdentifier.parse(BenchTable.TABLE),
              BenchTable.SCHEMA,
              BenchTable.SPEC,
              Map.of(
                  TableProperties.FORMAT_VERSION,
                  "2",
                  TableProperties.PARQUET_COMPRESSION,
                  "zstd",
                  // the writer and serve commit to one table: retry instead of failing the writer
                  TableProperties.COMMIT_NUM_RETRIES,
                  "20",
                  TableProperties.COMMIT_MIN_RETRY_WAIT_MS,
                  "20"));
        }
      }
      System.out.println("created " + lanes + " under " + dir);
      return;
    }
    double rate = Double.parseDouble(a.getOrDefault("rate", "1"));
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "10")) * 60);
    int sampleSeconds = Integer.parseInt(a.getOrDefault("sample-seconds", "10"));
    int rows = Integer.parseInt(a.getOrDefault("rows", "200"));
    Path csv = Path.of(a.getOrDefault("csv", dir.resolve("samples.csv").toString()));

    ScheduledExecutorService writers = Executors.newScheduledThreadPool(lanes.size());
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    Map<String, AtomicInteger> commits = new java.util.TreeMap<>();
    Map<String, AtomicInteger> failures = new java.util.TreeMap<>();
    Map<String, JdbcCatalog> catalogs = new java.util.TreeMap<>();
    long start = System.nanoTime();
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
      out.println(
          "lane,elapsed_s,commits,data_files,small_files,snapshots,manifests,load_ms,plan_ms");
      for (String lane : lanes) {
        JdbcCatalog catalog = BenchTable.open(dir.resolve(lane));
        catalogs.put(lane, catalog);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        commits.put(lane, done);
        failures.put(lane, failed);
        long periodMicros = Math.round(1_000_000 / rate);
        // fixed rate: a commit that takes longer than its period delays the next, never doubles up
        writers.scheduleAtFixedRate(
            () -> commit(catalog, lane, done, failed, rows),
            0,
            periodMicros,
            TimeUnit.MICROSECONDS);
      }
      sampler.scheduleAtFixedRate(
          () -> {
            double elapsed = (System.nanoTime() - start) / 1e9;
            for (String lane : lanes) {
              out.println(
                  sample(catalogs.get(lane), lane, elapsed, commits.get(lane).get()));
            }
            out.flush();
          },
          0,
          sampleSeconds,
          TimeUnit.SECONDS);
      Thread.sleep(seconds * 1000);
      writers.shutdown();
      writers.awaitTermination(5, TimeUnit.MINUTES);
      sampler.shutdown();
      sampler.awaitTermination(5, TimeUnit.MINUTES);
      double elapsed = (System.nanoTime() - start) / 1e9;
      for (String lane : lanes) {
        out.println(sample(catalogs.get(lane), lane, elapsed, commits.get(lane).get()));
      }
    } finally {
      for (JdbcCatalog c : catalogs.values()) {
        c.close();
      }
    }
    for (String lane : lanes) {
      System.out.printf(
          Locale.ROOT,
          "lane %s: %d commits in %d s (target %.0f), %d failed%n",
          lane,
          commits.get(lane).get(),
          seconds,
          rate * seconds,
          failures.get(lane).get());
    }
  }

  private static void commit(
      JdbcCatalog catalog, String lane, AtomicInteger done, AtomicInteger failed, int rows) {
    try {
      Table table = catalog.loadTable(TableIdentifier.parse(BenchTable.TABLE));
      int index = done.get() + failed.get();
      DataFile file = Generate.writeFile(table, index, rows, 1, lane.hashCode());
      table.newAppend().appendFile(file).commit();
      done.incrementAndGet();
    } catch (RuntimeException e) {
      // a scheduled task that throws is never run again: count it and go on
      failed.incrementAndGet();
      System.err.println("lane " + lane + ": commit failed: " + e);
    }
  }

  private static String sample(JdbcCatalog catalog, String lane, double elapsed, int commits) {
    try {
      long t0 = System.nanoTime();
      Table table = catalog.loadTable(TableIdentifier.parse(BenchTable.TABLE));
      double loadMs = (System.nanoTime() - t0) / 1e6;
      long small = 0;
      long files = 0;
      long target = Long.parseLong(table
          .properties()
          .getOrDefault(
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
              String.valueOf(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT)));
      long p0 = System.nanoTime();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          files++;
          if (task.file().fileSizeInBytes() < SMALL_FRACTION * target) {
            small++;
          }
        }
      }
      double planMs = (System.nanoTime() - p0) / 1e6;
      int manifests = table.currentSnapshot() == null
          ? 0
          : table.currentSnapshot().allManifests(table.io()).size();
      int snapshots = 0;
      for (var ignored : table.snapshots()) {
        snapshots++;
      }
      return String.format(
          Locale.ROOT,
          "%s,%.1f,%d,%d,%d,%d,%d,%.1f,%.1f",
          lane,
          elapsed,
          commits,
          files,
          small,
          snapshots,
          manifests,
          loadMs,
          planMs);
    } catch (RuntimeException | java.io.IOException e) {
      System.err.println("lane " + lane + ": sample failed: " + e);
      return String.format(Locale.ROOT, "%s,%.1f,%d,,,,,,", lane, elapsed, commits);
    }
  }
}
