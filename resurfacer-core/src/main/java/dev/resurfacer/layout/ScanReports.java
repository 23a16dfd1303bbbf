package dev.resurfacer.layout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.UsageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the scan-report JSON lines (docs/scan-reports.md) under a directory (every {@code *.jsonl}
 * and {@code *.json} file, recursively) or from one file. A line that is not JSON, not a
 * {@code resurfacer-scan-report}, or lacks a table is skipped and counted, never fatal.
 */
public final class ScanReports {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SANITIZED = Pattern.compile("^\\(.*\\)$");

  /**
   * @param scans the scans of the table asked for, oldest first
   * @param skipped lines skipped as malformed or foreign
   * @param otherTables well-formed scans of other tables
   * @param dropped scans the collectors said they dropped (their {@code "kind":"collector"} lines, last per file)
   */
  public record Loaded(
      List<RecordedScan> scans, long skipped, long otherTables, long dropped, int files) {
    public Loaded {
      scans = List.copyOf(scans);
    }
  }

  private ScanReports() {}

  /** The scans of {@code table} (its name as given, matched case-insensitively, with or without a catalog prefix). */
  public static Loaded read(Path where, String table) {
    if (!Files.exists(where)) {
      throw new UsageException(
          "no scan reports at " + where + " (set --scan-reports or compact.scan-reports)");
    }
    List<Path> files;
    try (Stream<Path> s = Files.isDirectory(where) ? Files.walk(where) : Stream.of(where)) {
      files = s.filter(Files::isRegularFile)
          .filter(p -> Files.isRegularFile(where)
              || p.getFileName().toString().endsWith(".jsonl")
              || p.getFileName().toString().endsWith(".json"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<RecordedScan> scans = new ArrayList<>();
    long skipped = 0;
    long others = 0;
    long dropped = 0;
    for (Path f : files) {
      long droppedInFile = 0;
      try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.isBlank()) {
            continue;
          }
          Line parsed = parse(line);
          if (parsed == null) {
            skipped++;
          } else if (parsed.scan() == null) {
            droppedInFile = Math.max(droppedInFile, parsed.dropped());
          } else if (matches(parsed.scan().table(), table)) {
            scans.add(parsed.scan());
          } else {
            others++;
          }
        }
      } catch (IOException | UncheckedIOException e) {
        // an unreadable or not-text file: counted as one skipped line, the others still count
        skipped++;
      }
      dropped += droppedInFile;
    }
    scans.sort(java.util.Comparator.comparing(RecordedScan::time));
    return new Loaded(scans, skipped, others, dropped, files.size());
  }

  /**
   * One line of the format: a scan, or (scan null) a collector's counters with its {@code dropped}
   * count. Null for a line that is not JSON, not this format, or lacks a required field.
   */
  public record Line(RecordedScan scan, long dropped) {}

  public static Line parse(String line) {
    JsonNode n;
    try {
      n = JSON.readTree(line);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    if (n == null
        || !n.isObject()
        || !"resurfacer-scan-report".equals(n.path("format").asText())) {
      return null;
    }
    if (n.path("kind").asText("scan").equals("collector")) {
      return new Line(null, n.path("dropped").asLong(0));
    }
    try {
      return new Line(scan(n), 0);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** "db.events" matches "db.events", "bench.db.events" and "DB.Events"; a path matches itself. */
  public static boolean matches(String reported, String asked) {
    String a = reported.toLowerCase(Locale.ROOT);
    String b = asked.toLowerCase(Locale.ROOT);
    return a.equals(b)
        || a.endsWith("." + b)
        || b.endsWith("." + a)
        || stripSlash(a).equals(stripSlash(b));
  }

  private static String stripSlash(String s) {
    String t = s.startsWith("file:") ? s.substring(5) : s;
    while (t.endsWith("/")) {
      t = t.substring(0, t.length() - 1);
    }
    return t;
  }

  private static RecordedScan scan(JsonNode n) {
    String table = n.path("table").asText(null);
    if (table == null || table.isBlank()) {
      throw new IllegalArgumentException("no table");
    }
    Instant time = n.hasNonNull("time") ? Instant.parse(n.get("time").asText()) : Instant.EPOCH;
    List<String> projected = new ArrayList<>();
    n.path("projected-field-names").forEach(p -> projected.add(p.asText()));
    JsonNode scanned = n.get("data-files-scanned");
    if (scanned == null || !scanned.canConvertToLong()) {
      throw new IllegalArgumentException("no data-files-scanned");
    }
    return new RecordedScan(
        table,
        time,
        n.path("snapshot-id").asLong(-1),
        filter(n.get("filter")),
        n.path("filter-values").asBoolean(false),
        projected,
        scanned.asLong(),
        n.path("data-files-skipped").asLong(0),
        n.path("bytes-scanned").asLong(0));
  }

  /** The filter JSON of Iceberg's ExpressionParser; anything unknown inside is {@link ScanFilter.Opaque}. */
  static ScanFilter filter(JsonNode f) {
    if (f == null || f.isNull()) {
      return new ScanFilter.All();
    }
    if (f.isBoolean()) {
      return f.asBoolean() ? new ScanFilter.All() : new ScanFilter.None();
    }
    if (!f.isObject()) {
      throw new IllegalArgumentException("filter is not an expression");
    }
    String type = f.path("type").asText("").toLowerCase(Locale.ROOT);
    switch (type) {
      case "true":
        return new ScanFilter.All();
      case "false":
        return new ScanFilter.None();
      case "and":
        return new ScanFilter.And(filter(f.get("left")), filter(f.get("right")));
      case "or":
        return new ScanFilter.Or(filter(f.get("left")), filter(f.get("right")));
      default:
        break;
    }
    JsonNode term = f.get("term");
    String column = term != null && term.isTextual() ? term.asText() : null;
    if (column == null) {
      return new ScanFilter.Opaque(
          term != null && term.has("term") ? term.get("term").asText() : null);
    }
    return switch (type) {
      case "eq" -> new ScanFilter.Compare(column, ScanFilter.Op.EQ, value(f.get("value")));
      case "lt" -> new ScanFilter.Compare(column, ScanFilter.Op.LT, value(f.get("value")));
      case "lt-eq" -> new ScanFilter.Compare(column, ScanFilter.Op.LT_EQ, value(f.get("value")));
      case "gt" -> new ScanFilter.Compare(column, ScanFilter.Op.GT, value(f.get("value")));
      case "gt-eq" -> new ScanFilter.Compare(column, ScanFilter.Op.GT_EQ, value(f.get("value")));
      case "in" -> {
        List<Object> values = new ArrayList<>();
        f.path("values").forEach(v -> values.add(value(v)));
        yield values.isEmpty() ? new ScanFilter.Opaque(column) : new ScanFilter.In(column, values);
      }
      default -> new ScanFilter.Opaque(column);
    };
  }

  private static Object value(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() ? (Object) v.asLong() : v.asText();
    }
    if (v.isNumber()) {
      return v.asDouble();
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isTextual()) {
      return SANITIZED.matcher(v.asText()).matches() ? null : v.asText();
    }
    if (v.isObject() && v.has("value")) {
      return value(v.get("value"));
    }
    return null;
  }
}
