package dev.resurfacer.serve;

import dev.resurfacer.layout.ScanReports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * {@code POST /v1/scan-reports}: scan-report lines (docs/scan-reports.md) appended to the
 * {@code compact.scan-reports} location of the served table each line names. Each location gets one
 * file per serve process; lines are appended whole under one lock, so concurrent posts never
 * interleave within a line. A line that is malformed or foreign is skipped and counted; a scan of a
 * table serve does not know, or whose policy sets no location, is counted apart and written nowhere.
 */
final class ScanReportIntake {
  /** The largest body accepted: a collector posts batches far smaller than this. */
  static final int MAX_BODY_BYTES = 8 << 20;

  /**
   * @param accepted lines written (scans and collector counters)
   * @param skipped malformed or foreign lines
   * @param unknownTable well-formed scans of a table serve does not serve, or without {@code compact.scan-reports}
   */
  record Result(long accepted, long skipped, long unknownTable) {
    String json() {
      return "{\"accepted\":" + accepted + ",\"skipped\":" + skipped + ",\"unknown-table\":"
          + unknownTable + "}\n";
    }
  }

  private final String fileName;
  private final Map<Path, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

  ScanReportIntake(Instant startedAt) {
    this.fileName = "serve-scan-reports-"
        + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(startedAt) + "-" + UUID.randomUUID().toString().substring(0, 8) + ".jsonl";
  }

  /**
   * @param locationOf the scan-report location of the served table a report's table name matches; empty when none
   */
  Result accept(String body, Function<String, Optional<Path>> locationOf) {
    Map<Path, StringBuilder> out = new LinkedHashMap<>();
    List<String> counters = new ArrayList<>();
    long skipped = 0;
    long unknown = 0;
    for (String line : body.split("\n")) {
      String l = line.strip();
      if (l.isEmpty()) {
        continue;
      }
      ScanReports.Line parsed = ScanReports.parse(l);
      if (parsed == null) {
        skipped++;
      } else if (parsed.scan() == null) {
        counters.add(l);
      } else {
        Optional<Path> where = locationOf.apply(parsed.scan().table());
        if (where.isEmpty()) {
          unknown++;
        } else {
          out.computeIfAbsent(where.get(), k -> new StringBuilder()).append(l).append('\n');
        }
      }
    }
    long accepted = 0;
    for (Map.Entry<Path, StringBuilder> e : out.entrySet()) {
      // a collector's counters describe the scans it sent: they go where those scans went
      counters.forEach(c -> e.getValue().append(c).append('\n'));
      accepted += e.getValue().chars().filter(ch -> ch == '\n').count();
      append(e.getKey(), e.getValue().toString());
    }
    if (out.isEmpty()) {
      skipped += counters.size();
    } else {
      accepted -= (long) counters.size() * (out.size() - 1);
    }
    return new Result(accepted, skipped, unknown);
  }

  private void append(Path dir, String text) {
    Path d = dir.toAbsolutePath().normalize();
    synchronized (locks.computeIfAbsent(d, k -> new Object())) {
      try {
        Files.createDirectories(d);
        Files.writeString(
            d.resolve(fileName),
            text,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot append scan reports to " + d + ": " + e.getMessage(), e);
      }
    }
  }
}
