package dev.resurfacer.scanreports;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.events.Listeners;
import org.apache.iceberg.events.ScanEvent;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;

/**
 * An Iceberg {@link MetricsReporter} that writes each {@link ScanReport} as one JSON line
 * (docs/scan-reports.md) into a directory, for {@code resurfacer advise}. Configured by catalog
 * properties:
 *
 * <pre>
 * metrics-reporter-impl=dev.resurfacer.scanreports.ScanReportCollector
 * resurfacer.scan-reports.dir=/var/lib/scan-reports      (required)
 * resurfacer.scan-reports.buffer=10000                  (reports held before dropping)
 * resurfacer.scan-reports.filter-values=false           (true: record the filter's literal values)
 * </pre>
 *
 * <p>The engine's thread only offers the report to a bounded queue; a daemon thread formats and
 * writes. A full queue drops the report and counts it; an unwritable directory disables writing and
 * counts too. Nothing here throws into the engine.
 *
 * <p>Iceberg hands reporters a sanitized filter (literals replaced by "(5-digit-int)" and the like).
 * With {@code filter-values=true} the collector also listens to Iceberg's {@link ScanEvent}, which
 * carries the filter as planned, and records that one instead: the values make advise's simulation
 * exact, at the price of query literals in the files.
 */
public final class ScanReportCollector implements MetricsReporter {
  @Serial private static final long serialVersionUID = 1L;

  public static final String DIR = "resurfacer.scan-reports.dir";
  public static final String BUFFER = "resurfacer.scan-reports.buffer";
  public static final String FILTER_VALUES = "resurfacer.scan-reports.filter-values";
  static final int DEFAULT_BUFFER = 10_000;
  private static final int MAX_PENDING_FILTERS = 10_000;
  private static final System.Logger LOG = System.getLogger(ScanReportCollector.class.getName());

  private record Item(ScanReport report, Expression rawFilter, long timeMillis) {}

  private transient ArrayBlockingQueue<Item> queue;
  private transient Map<String, Expression> pendingFilters;
  private transient Thread writer;
  private transient Path file;
  private transient boolean filterValues;
  private final AtomicLong reported = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  @Override
  public void initialize(Map<String, String> properties) {
    try {
      String dir = properties.get(DIR);
      if (dir == null || dir.isBlank()) {
        LOG.log(System.Logger.Level.WARNING, "resurfacer scan-report collector: " + DIR + " is not set; reports are not recorded");
        return;
      }
      int capacity = Integer.parseInt(properties.getOrDefault(BUFFER, Integer.toString(DEFAULT_BUFFER)).trim());
      filterValues = Boolean.parseBoolean(properties.getOrDefault(FILTER_VALUES, "false").trim());
      Path directory = Path.of(dir);
      Files.createDirectories(directory);
      String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
      file = directory.resolve("scan-reports-" + stamp + "-" + UUID.randomUUID().toString().substring(0, 8) + ".jsonl");
      queue = new ArrayBlockingQueue<>(Math.max(1, capacity));
      pendingFilters = new ConcurrentHashMap<>();
      if (filterValues) {
        Listeners.register(this::onScanEvent, ScanEvent.class);
      }
      writer = new Thread(this::drain, "resurfacer-scan-reports");
      writer.setDaemon(true);
      writer.start();
    } catch (RuntimeException | IOException e) {
      queue = null;
      LOG.log(System.Logger.Level.WARNING, "resurfacer scan-report collector disabled: " + e);
    }
  }

  @Override
  public void report(MetricsReport report) {
    if (!(report instanceof ScanReport scan)) {
      return;
    }
    reported.incrementAndGet();
    ArrayBlockingQueue<Item> q = queue;
    if (q == null || closed.get()) {
      dropped.incrementAndGet();
      return;
    }
    Expression raw = filterValues ? pendingFilters.remove(key(scan.tableName(), scan.snapshotId())) : null;
    if (!q.offer(new Item(scan, raw, System.currentTimeMillis()))) {
      dropped.incrementAndGet();
    }
  }

  private void onScanEvent(ScanEvent event) {
    if (pendingFilters.size() >= MAX_PENDING_FILTERS) {
      // events whose reports never came (a scan planned but not iterated): forget them rather than grow
      pendingFilters.clear();
    }
    pendingFilters.put(key(event.tableName(), event.snapshotId()), event.filter());
  }

  /** The event and the report of one scan come from the planning thread, before and after planning. */
  private static String key(String table, long snapshotId) {
    return Thread.currentThread().getId() + "/" + snapshotId + "/" + table;
  }

  /** Writes what is queued, then stops the writer; reports arriving later are counted as dropped. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || writer == null) {
      return;
    }
    writer.interrupt();
    try {
      writer.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Scan reports received. */
  public long reported() {
    return reported.get();
  }

  /** Scan reports written to the file. */
  public long written() {
    return written.get();
  }

  /** Scan reports dropped because the buffer was full, the collector closed or not configured. */
  public long dropped() {
    return dropped.get();
  }

  /** Scan reports lost to a write error. */
  public long failed() {
    return failed.get();
  }

  /** The file this collector writes; null when not configured. */
  public Path file() {
    return file;
  }

  /** Blocks until the queue is empty and written (tests, benchmarks). */
  public boolean awaitWritten(long timeoutMillis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (written.get() + failed.get() + dropped.get() < reported.get()) {
      if (System.currentTimeMillis() > deadline) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  private void drain() {
    List<Item> batch = new ArrayList<>();
    long droppedWritten = 0;
    StringBuilder line = new StringBuilder(1024);
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND)) {
      boolean stop = false;
      while (!stop) {
        try {
          Item first = queue.poll(1, TimeUnit.SECONDS);
          if (first != null) {
            batch.add(first);
          }
        } catch (InterruptedException e) {
          stop = true;
        }
        queue.drainTo(batch);
        for (Item item : batch) {
          line.setLength(0);
          try {
            ReportLine.scan(line, item.report(), item.rawFilter(), item.timeMillis());
            out.write(line.append('\n').toString());
            written.incrementAndGet();
          } catch (RuntimeException e) {
            failed.incrementAndGet();
          }
        }
        batch.clear();
        long d = dropped.get();
        if (d != droppedWritten || (stop && reported.get() > 0)) {
          line.setLength(0);
          ReportLine.collector(line, reported.get(), written.get(), d, failed.get(), System.currentTimeMillis());
          out.write(line.append('\n').toString());
          droppedWritten = d;
        }
        out.flush();
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "resurfacer scan-report collector stopped writing " + file + ": " + e);
      queue = null;
    }
  }
}
