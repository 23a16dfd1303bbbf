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
 * resurfacer.scan-reports.dir=/var/lib/scan-reports      (a directory to write into; or)
 * resurfacer.scan-reports.uri=http://host:8650/v1/scan-reports   (serve to post to; wins over dir)
 * resurfacer.scan-reports.token=...                      (with uri: serve's token, sent as a bearer token)
 * resurfacer.scan-reports.buffer=10000                  (reports held before dropping)
 * resurfacer.scan-reports.filter-values=false           (true: record the filter's literal values)
 * </pre>
 *
 * <p>The engine's thread only offers the report to a bounded queue; a daemon thread formats and
 * writes. A full queue drops the report and counts it; an unwritable directory disables writing and
 * counts too; with {@code uri} the writer posts each batch to {@code serve}, and a batch serve does not
 * take (down, refusing, slow) is counted as failed. Nothing here throws into the engine or waits
 * for the network on its thread.
 *
 * <p>Iceberg hands reporters a sanitized filter (literals replaced by "(5-digit-int)" and the like).
 * With {@code filter-values=true} the collector also listens to Iceberg's {@link ScanEvent}, which
 * carries the filter as planned, and records that one instead: the values make advise's simulation
 * exact, at the price of query literals in the files.
 */
public final class ScanReportCollector implements MetricsReporter {
  @Serial
  private static final long serialVersionUID = 1L;

  public static final String DIR = "resurfacer.scan-reports.dir";
  public static final String BUFFER = "resurfacer.scan-reports.buffer";
  public static final String FILTER_VALUES = "resurfacer.scan-reports.filter-values";
  public static final String URI = "resurfacer.scan-reports.uri";
  public static final String TOKEN = "resurfacer.scan-reports.token";
  /** A post holds at most this many bytes of lines (serve takes up to 8 MB). */
  static final int MAX_POST_BYTES = 1 << 20;

  static final int DEFAULT_BUFFER = 10_000;
  private static final int MAX_PENDING_FILTERS = 10_000;
  private static final System.Logger LOG = System.getLogger(ScanReportCollector.class.getName());

  private record Item(ScanReport report, Expression rawFilter, long timeMillis) {}

  private transient ArrayBlockingQueue<Item> queue;
  private transient Map<String, Expression> pendingFilters;
  private transient Thread writer;
  private transient Path file;
  private transient java.net.URI uri;
  private transient String token;
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
      String target = properties.get(URI);
      if ((dir == null || dir.isBlank()) && (target == null || target.isBlank())) {
        LOG.log(
            System.Logger.Level.WARNING,
            "resurfacer scan-report collector: neither " + DIR + " nor " + URI
                + " is set; reports are not recorded");
        return;
      }
      int capacity = Integer.parseInt(
          properties.getOrDefault(BUFFER, Integer.toString(DEFAULT_BUFFER)).trim());
      filterValues =
          Boolean.parseBoolean(properties.getOrDefault(FILTER_VALUES, "false").trim());
      if (target != null && !target.isBlank()) {
        java.net.URI u = java.net.URI.create(target.trim());
        if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) {
          throw new IllegalArgumentException(
              URI + " must be an http(s) address (got scheme " + u.getScheme() + ")");
        }
        uri = u.getPath() == null || u.getPath().isEmpty() || u.getPath().equals("/")
            ? u.resolve("/v1/scan-reports")
            : u;
        token = properties.get(TOKEN);
      } else {
        Path directory = Path.of(dir);
        Files.createDirectories(directory);
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now());
        file = directory.resolve("scan-reports-" + stamp + "-"
            + UUID.randomUUID().toString().substring(0, 8) + ".jsonl");
      }
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
    Expression raw =
        filterValues ? pendingFilters.remove(key(scan.tableName(), scan.snapshotId())) : null;
    if (!q.offer(new Item(scan, raw, System.currentTimeMillis()))) {
      dropped.incrementAndGet();
    }
  }

  private void onScanEvent(ScanEvent event) {
    if (pendingFilters.size() >= MAX_PENDING_FILTERS) {
      // events whose reports never came (a scan planned but not iterated): forget them rather than
      // grow
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

  /** Scan reports lost to a write error, or posted and not taken by serve (unreachable, refused). */
  public long failed() {
    return failed.get();
  }

  /** The file this collector writes; null when not configured or posting to serve. */
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

  /** Where the writer thread puts lines: the file, or serve. */
  private interface Sink extends AutoCloseable {
    /** @return whether the lines were taken */
    boolean put(String lines) throws IOException;

    @Override
    void close() throws IOException;
  }

  private Sink sink() throws IOException {
    if (uri == null) {
      BufferedWriter out = Files.newBufferedWriter(
          file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      return new Sink() {
        public boolean put(String lines) throws IOException {
          out.write(lines);
          out.flush();
          return true;
        }

        public void close() throws IOException {
          out.close();
        }
      };
    }
    java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
        .connectTimeout(java.time.Duration.ofSeconds(5))
        .build();
    return new Sink() {
      public boolean put(String lines) {
        java.net.http.HttpRequest.Builder req = java.net.http.HttpRequest.newBuilder(uri)
            .timeout(java.time.Duration.ofSeconds(30))
            .header("Content-Type", "application/x-ndjson")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(lines, StandardCharsets.UTF_8));
        if (token != null && !token.isBlank()) {
          req.header("Authorization", "Bearer " + token.trim());
        }
        try {
          int status = client
              .send(req.build(), java.net.http.HttpResponse.BodyHandlers.discarding())
              .statusCode();
          if (status / 100 != 2 && warnedStatus.compareAndSet(false, true)) {
            LOG.log(
                System.Logger.Level.WARNING,
                "resurfacer scan-report collector: " + uri + " answered " + status
                    + "; reports it refuses are counted as failed");
          }
          return status / 100 == 2;
        } catch (IOException e) {
          return false;
        } catch (InterruptedException e) {
          // close() interrupts the writer to make it finish: one last try would wait again, so
          // count the batch lost
          Thread.currentThread().interrupt();
          return false;
        }
      }

      public void close() {}
    };
  }

  private final AtomicBoolean warnedStatus = new AtomicBoolean();

  private void drain() {
    List<Item> batch = new ArrayList<>();
    long droppedWritten = 0;
    StringBuilder line = new StringBuilder(1024);
    StringBuilder lines = new StringBuilder(64 * 1024);
    try (Sink out = sink()) {
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
        int inLines = 0;
        for (Item item : batch) {
          line.setLength(0);
          try {
            ReportLine.scan(line, item.report(), item.rawFilter(), item.timeMillis());
            lines.append(line).append('\n');
            inLines++;
          } catch (RuntimeException e) {
            failed.incrementAndGet();
          }
          if (lines.length() >= MAX_POST_BYTES) {
            put(out, lines, inLines);
            inLines = 0;
          }
        }
        batch.clear();
        long d = dropped.get();
        if (d != droppedWritten || (stop && reported.get() > 0)) {
          line.setLength(0);
          ReportLine.collector(
              line,
              reported.get(),
              written.get() + inLines,
              d,
              failed.get(),
              System.currentTimeMillis());
          lines.append(line).append('\n');
          droppedWritten = d;
        }
        if (!lines.isEmpty()) {
          put(out, lines, inLines);
        }
        stop |= Thread.currentThread().isInterrupted();
      }
      // interrupted in the middle of a post: what is still queued is never written
      List<Item> left = new ArrayList<>();
      queue.drainTo(left);
      dropped.addAndGet(left.size());
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "resurfacer scan-report collector stopped writing " + (uri != null ? uri : file) + ": "
              + e);
      queue = null;
    }
  }

  private void put(Sink out, StringBuilder lines, int scans) throws IOException {
    if (out.put(lines.toString())) {
      written.addAndGet(scans);
    } else {
      failed.addAndGet(scans);
    }
    lines.setLength(0);
  }
}
