package dev.resurfacer.bench;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.compact.Ordering;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Restores the scenario's pristine copy, then compacts it with {@code Compaction.execute} and the
 * default options (bin-pack, target = the table's 512 MB), and prints what it did and what it cost.
 * Run it in a fresh JVM ({@code bench/run-compaction.sh}). Lines starting with {@code RESULT} are
 * key=value for the summary script.
 *
 * <pre>OurCompaction --scenario DIR [--memory BYTES] [--scratch DIR] [--restore true]
 *     [--strategy binpack|sort|zorder] [--sort-by "user_id, ts"] [--columns user_id,ts] [--verify content|count]</pre>
 */
public final class OurCompaction {
  private OurCompaction() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path scenario = Path.of(a.getOrDefault("scenario", "bench/work/events"))
        .toAbsolutePath()
        .normalize();
    long restoreMs =
        Boolean.parseBoolean(a.getOrDefault("restore", "true")) ? BenchTable.restore(scenario) : 0;

    CompactionOptions options = CompactionOptions.defaults();
    if (a.containsKey("memory")) {
      options = options.withMemory(Long.parseLong(a.get("memory")));
    }
    options = options.withVerification(
        switch (a.getOrDefault("verify", "content")) {
          case "content" -> CompactionOptions.Verification.CONTENT;
          case "count" -> CompactionOptions.Verification.COUNT;
          default ->
            throw new IllegalArgumentException("--verify content|count, got " + a.get("verify"));
        });
    String strategy = a.getOrDefault("strategy", "binpack");
    switch (strategy) {
      case "binpack" -> {}
      case "sort" ->
        options = options.withOrdering(new Ordering.Sort(a.getOrDefault("sort-by", "user_id, ts")));
      case "zorder" ->
        options = options.withOrdering(
            new Ordering.ZOrder(List.of(a.getOrDefault("columns", "user_id,ts").split(","))));
      default ->
        throw new IllegalArgumentException("--strategy binpack|sort|zorder, got " + strategy);
    }
    Path scratch = Path.of(a.getOrDefault("scratch", scenario.resolve("scratch").toString()))
        .toAbsolutePath();
    Files.createDirectories(scratch);
    options = options.withScratchDir(scratch);

    // samplers: current RSS (VmHWM is the kernel's own peak) and bytes DuckDB spilled under scratch
    AtomicLong maxRss = new AtomicLong();
    AtomicLong maxSpill = new AtomicLong();
    Thread sampler = new Thread(
        () -> {
          while (!Thread.currentThread().isInterrupted()) {
            maxRss.accumulateAndGet(BenchTable.procStatus("VmRSS"), Math::max);
            maxSpill.accumulateAndGet(BenchTable.treeBytes(scratch, "/spill"), Math::max);
            try {
              Thread.sleep(250);
            } catch (InterruptedException e) {
              return;
            }
          }
        },
        "rss-sampler");
    sampler.setDaemon(true);
    sampler.start();

    long t0 = System.nanoTime();
    CompactionResult r;
    try (JdbcCatalog catalog = BenchTable.open(BenchTable.live(scenario))) {
      Table table = catalog.loadTable(TableIdentifier.parse(BenchTable.TABLE));
      long openMs = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf(
          Locale.ROOT,
          "restore %.1f s, catalog+table open %.2f s; memory budget %s, scratch %s, %d cores, max heap %s%n",
          restoreMs / 1000.0,
          openMs / 1000.0,
          BenchTable.mb(options.memoryBytes()),
          scratch,
          Runtime.getRuntime().availableProcessors(),
          BenchTable.mb(Runtime.getRuntime().maxMemory()));
      r = Compaction.execute(
          Compaction.plan(table, options),
          dev.resurfacer.progress.Progress.NONE,
          msg -> System.out.println("  " + msg));
    }
    long wallMs = (System.nanoTime() - t0) / 1_000_000;
    sampler.interrupt();
    maxRss.accumulateAndGet(BenchTable.procStatus("VmRSS"), Math::max);
    long hwm = BenchTable.procStatus("VmHWM");
    // the process's own time: JVM uptime minus the restore (a benchmark step, not compaction)
    long processMs = ManagementFactory.getRuntimeMXBean().getUptime() - restoreMs;

    for (CompactionResult.Group g : r.groups()) {
      System.out.printf(
          Locale.ROOT,
          "  group %-18s %-7s %4d files %9s -> %d files %9s, %,d rows in %.1f s (%,.0f rows/s)%s%n",
          g.partition(),
          g.runner(),
          g.inputFiles(),
          BenchTable.mb(g.inputBytes()),
          g.outputFiles(),
          BenchTable.mb(g.outputBytes()),
          g.rows(),
          g.millis() / 1000.0,
          g.rows() * 1000.0 / Math.max(1, g.millis()),
          g.status() == CompactionResult.Status.COMMITTED
              ? ""
              : "  " + g.status() + ": " + g.message());
    }
    System.out.printf(
        Locale.ROOT,
        "compacted %s: %d files (%s) -> %d files (%s), %,d rows in %.1f s = %,.0f rows/s; peak RSS %s (VmHWM %s, max sampled VmRSS %s); max spill %s%n",
        r.table(),
        r.rewrittenFiles(),
        BenchTable.mb(r.rewrittenBytes()),
        r.addedFiles(),
        BenchTable.mb(r.addedBytes()),
        r.rows(),
        r.millis() / 1000.0,
        r.rows() * 1000.0 / Math.max(1, r.millis()),
        BenchTable.mb(r.peakRssBytes()),
        BenchTable.mb(hwm),
        BenchTable.mb(maxRss.get()),
        BenchTable.mb(maxSpill.get()));
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=resurfacer strategy=%s verification=%s ok=%s restore_ms=%d compaction_ms=%d wall_ms=%d process_ms=%d rows=%d input_files=%d input_bytes=%d"
            + " output_files=%d output_bytes=%d peak_rss=%d vmhwm=%d max_spill=%d memory=%d groups=%d%n",
        strategy,
        r.verification(),
        r.allCommitted(),
        restoreMs,
        r.millis(),
        wallMs,
        processMs,
        r.rows(),
        r.rewrittenFiles(),
        r.rewrittenBytes(),
        r.addedFiles(),
        r.addedBytes(),
        r.peakRssBytes(),
        hwm,
        maxSpill.get(),
        options.memoryBytes(),
        r.groups().size());
    if (!r.allCommitted() || r.rows() == 0) {
      System.exit(1);
    }
  }
}
