package dev.resurfacer.bench;

import dev.resurfacer.scanreports.ScanReportCollector;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.metrics.ImmutableScanReport;
import org.apache.iceberg.metrics.ScanMetrics;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * The scan-report collector under load (docs/benchmarks.md). Part 1: THREADS threads plan real Iceberg
 * scans (a 200-file table, a user_id filter) in rounds alternating no reporter and the collector, and
 * compare the planning threads' wall and CPU per scan; the collector must write every report. Part 2:
 * a collector with an 8-report buffer takes a flood of reports from THREADS threads: the calls'
 * latency (none may block), and reported = written + dropped.
 *
 * <pre>CollectorLoad --dir DIR [--threads 4] [--scans 5000] [--rounds 3] [--flood 1000000]</pre>
 */
public final class CollectorLoad {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CollectorLoad() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path dir = Path.of(a.getOrDefault("dir", "bench/work/collector-load"));
    int threads = Integer.parseInt(a.getOrDefault("threads", "4"));
    int scans = Integer.parseInt(a.getOrDefault("scans", "5000"));
    int rounds = Integer.parseInt(a.getOrDefault("rounds", "3"));
    int flood = Integer.parseInt(a.getOrDefault("flood", "1000000"));
    Files.createDirectories(dir);

    Table plain = table();
    ScanReportCollector collector = new ScanReportCollector();
    collector.initialize(Map.of(
        ScanReportCollector.DIR,
        dir.resolve("scans").toString(),
        ScanReportCollector.FILTER_VALUES,
        "true"));
    Table reported =
        new BaseTable(((HasTableOperations) plain).operations(), plain.name(), collector);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    // warm both paths (JIT, manifest caches) before measuring
    run(pool, threads, 500, plain);
    run(pool, threads, 500, reported);
    double[] plainWall = new double[rounds];
    double[] plainCpu = new double[rounds];
    double[] withWall = new double[rounds];
    double[] withCpu = new double[rounds];
    long processCpu0 = processCpu();
    long withProcessCpu = 0;
    long plainProcessCpu = 0;
    for (int r = 0; r < rounds; r++) {
      long p0 = processCpu();
      double[] p = run(pool, threads, scans, plain);
      long p1 = processCpu();
      double[] w = run(pool, threads, scans, reported);
      long p2 = processCpu();
      plainWall[r] = p[0];
      plainCpu[r] = p[1];
      withWall[r] = w[0];
      withCpu[r] = w[1];
      plainProcessCpu += p1 - p0;
      withProcessCpu += p2 - p1;
    }
    long expected = (long) rounds * threads * scans + (long) threads * 500;
    boolean all = collector.awaitWritten(120_000);
    long total = (long) rounds * threads * scans;
    System.out.printf(
        Locale.ROOT,
        "planning %d scans per round on %d threads, %d rounds (median): no reporter %.1f us wall %.1f us CPU per scan;"
            + " collector %.1f us wall %.1f us CPU per scan; process CPU per scan (writer thread included) %.1f vs %.1f us%n",
        threads * scans,
        threads,
        rounds,
        median(plainWall),
        median(plainCpu),
        median(withWall),
        median(withCpu),
        plainProcessCpu / 1000.0 / total,
        withProcessCpu / 1000.0 / total);
    System.out.printf(
        Locale.ROOT,
        "collector: reported %d, written %d, dropped %d, failed %d (expected %d, all written: %s)%n",
        collector.reported(),
        collector.written(),
        collector.dropped(),
        collector.failed(),
        expected,
        all);
    // a round's wall is the per-scan wall times the scans each thread planned
    double scansPerMinute = threads * 60e6 / median(withWall);
    collector.close();
    pool.shutdown();

    // part 2: a full buffer drops and counts, and never blocks
    ScanReportCollector tiny = new ScanReportCollector();
    tiny.initialize(Map.of(
        ScanReportCollector.DIR, dir.resolve("flood").toString(), ScanReportCollector.BUFFER, "8"));
    ScanReport report = ImmutableScanReport.builder()
        .tableName("db.events")
        .snapshotId(1)
        .schemaId(0)
        .filter(Expressions.equal("user_id", 5L))
        .scanMetrics(ScanMetricsResult.fromScanMetrics(ScanMetrics.noop()))
        .build();
    ExecutorService floodPool = Executors.newFixedThreadPool(threads);
    List<Future<long[]>> parts = new ArrayList<>();
    long f0 = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      parts.add(floodPool.submit(() -> {
        long max = 0;
        long[] lat = new long[flood / threads];
        for (int i = 0; i < lat.length; i++) {
          long s = System.nanoTime();
          tiny.report(report);
          lat[i] = System.nanoTime() - s;
          max = Math.max(max, lat[i]);
        }
        Arrays.sort(lat);
        return new long[] {max, lat[(int) (lat.length * 0.999)], lat[lat.length / 2]};
      }));
    }
    long max = 0;
    long p999 = 0;
    long p50 = 0;
    for (Future<long[]> f : parts) {
      long[] v = f.get();
      max = Math.max(max, v[0]);
      p999 = Math.max(p999, v[1]);
      p50 = Math.max(p50, v[2]);
    }
    long floodMs = (System.nanoTime() - f0) / 1_000_000;
    tiny.awaitWritten(60_000);
    tiny.close();
    floodPool.shutdown();
    System.out.printf(
        Locale.ROOT,
        "flood of %d reports on %d threads into an 8-report buffer in %d ms: report() median %d ns, p99.9 %d ns, max %.2f ms;"
            + " reported %d = written %d + dropped %d: %s%n",
        tiny.reported(),
        threads,
        floodMs,
        p50,
        p999,
        max / 1e6,
        tiny.reported(),
        tiny.written(),
        tiny.dropped(),
        tiny.reported() == tiny.written() + tiny.dropped());
    System.out.printf(
        Locale.ROOT,
        "RESULT collector-load scans=%d lost=%d wall_us_plain=%.1f wall_us_collector=%.1f cpu_us_plain=%.1f cpu_us_collector=%.1f"
            + " process_cpu_us_plain=%.1f process_cpu_us_collector=%.1f scans_per_minute=%.0f flood=%d flood_dropped=%d flood_max_ms=%.2f accounted=%s%n",
        total,
        expected - collector.written(),
        median(plainWall),
        median(withWall),
        median(plainCpu),
        median(withCpu),
        plainProcessCpu / 1000.0 / total,
        withProcessCpu / 1000.0 / total,
        scansPerMinute,
        tiny.reported(),
        tiny.dropped(),
        max / 1e6,
        tiny.reported() == tiny.written() + tiny.dropped());
    System.exit(0);
  }

  /** Per-scan wall (the round's wall divided by the scans per thread) and per-scan CPU of the planning threads, in microseconds. */
  private static double[] run(ExecutorService pool, int threads, int scans, Table table)
      throws Exception {
    List<Future<Long>> parts = new ArrayList<>();
    AtomicLong files = new AtomicLong();
    long t0 = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      parts.add(pool.submit(() -> {
        long c0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < scans; i++) {
          long user = ((long) i * 7919 + seed * 104_729L) % 200_000;
          try (CloseableIterable<FileScanTask> tasks =
              table.newScan().filter(Expressions.equal("user_id", user)).planFiles()) {
            for (FileScanTask ignored : tasks) {
              files.incrementAndGet();
            }
          }
        }
        return THREADS.getCurrentThreadCpuTime() - c0;
      }));
    }
    long cpu = 0;
    for (Future<Long> f : parts) {
      cpu += f.get();
    }
    long wall = System.nanoTime() - t0;
    return new double[] {wall / 1000.0 / scans, cpu / 1000.0 / ((long) threads * scans)};
  }

  private static Table table() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize(
        "load", Map.of(CatalogProperties.WAREHOUSE_LOCATION, "/tmp/collector-load-wh"));
    catalog.createNamespace(Namespace.of("db"));
    Schema schema = new Schema(
        Types.NestedField.required(1, "user_id", Types.LongType.get()),
        Types.NestedField.optional(2, "event", Types.StringType.get()));
    Table t = catalog.createTable(
        TableIdentifier.of("db", "events"), schema, PartitionSpec.unpartitioned());
    var append = t.newAppend();
    for (int i = 0; i < 200; i++) {
      Metrics m = new Metrics(
          1000L,
          null,
          Map.of(1, 1000L),
          Map.of(1, 0L),
          null,
          Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 1000L)),
          Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 1000L + 999)));
      append.appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
          .withPath("/data/f" + i + ".parquet")
          .withFormat(FileFormat.PARQUET)
          .withFileSizeInBytes(1 << 20)
          .withMetrics(m)
          .build());
    }
    append.commit();
    return catalog.loadTable(TableIdentifier.of("db", "events"));
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
