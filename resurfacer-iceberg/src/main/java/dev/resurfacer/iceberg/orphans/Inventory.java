package dev.resurfacer.iceberg.orphans;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.UsageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * A listing of storage taken earlier, read instead of listing storage: an S3 Inventory report (its
 * {@code manifest.json}, with CSV or Parquet data files) or a plain list of locations with sizes and
 * modification times. {@link #takenAtMillis} is when the listing describes storage: every file that
 * existed then is in it, and none newer.
 */
public sealed interface Inventory permits Inventory.S3Report, Inventory.PlainList {
  /** Where the listing was read from, for reports. */
  String source();

  long takenAtMillis();

  /** Streams every listed file: location, size, modification time (0 when unknown). */
  void forEach(Consumer<FileInfo> sink);

  /** Reads {@code location} (a path or any URI the FileIO reads): a {@code *.json} manifest is an S3 Inventory report. */
  static Inventory open(String location, FileIO io) {
    InputFile file = io.newInputFile(location);
    if (!exists(file)) {
      throw new UsageException("listing " + location + " does not exist");
    }
    return location.endsWith(".json") ? S3Report.read(location, io) : PlainList.read(location, io);
  }

  private static boolean exists(InputFile f) {
    try {
      return f.exists();
    } catch (RuntimeException e) {
      throw new UsageException("cannot read listing " + f.location() + ": " + e.getMessage());
    }
  }

  /**
   * An S3 Inventory report: {@code creationTimestamp} (when the scan began) is the listing's time;
   * each data file lies at {@code s3://<destination bucket>/<key>}, or — for a manifest copied off
   * S3 — in the {@code data/} directory beside the manifest's parent, as S3 lays a report out. Only
   * current versions are listed (no delete markers, no noncurrent versions). CSV keys are
   * URL-encoded by S3 and decoded here; Parquet keys are not encoded.
   */
  record S3Report(
      String source,
      long takenAtMillis,
      String format,
      String sourceBucket,
      List<String> columns,
      List<String> dataFiles,
      FileIO io)
      implements Inventory {

    static S3Report read(String location, FileIO io) {
      JsonNode m;
      try (InputStream in = io.newInputFile(location).newStream()) {
        m = new ObjectMapper().readTree(in);
      } catch (IOException e) {
        throw new UsageException(
            "listing " + location + " is not a JSON manifest: " + e.getMessage());
      }
      for (String field : List.of(
          "sourceBucket",
          "destinationBucket",
          "creationTimestamp",
          "fileFormat",
          "fileSchema",
          "files")) {
        if (!m.hasNonNull(field)) {
          throw new UsageException("listing " + location
              + " is not an S3 Inventory manifest: it has no '" + field + "'");
        }
      }
      String format = m.get("fileFormat").asText().toUpperCase(Locale.ROOT);
      if (!format.equals("CSV") && !format.equals("PARQUET")) {
        throw new UsageException("listing " + location + ": S3 Inventory format "
            + m.get("fileFormat").asText() + " is not read (CSV and Parquet are)");
      }
      long taken;
      try {
        taken = Long.parseLong(m.get("creationTimestamp").asText());
      } catch (NumberFormatException e) {
        throw new UsageException("listing " + location + ": creationTimestamp '"
            + m.get("creationTimestamp").asText() + "' is not milliseconds since the epoch");
      }
      String destination = m.get("destinationBucket").asText().replaceFirst("^arn:aws:s3:::", "");
      boolean onS3 = location.startsWith("s3://")
          || location.startsWith("s3a://")
          || location.startsWith("s3n://");
      String reportDir = location.substring(0, location.lastIndexOf('/'));
      String dataDir = reportDir.substring(0, Math.max(0, reportDir.lastIndexOf('/'))) + "/data/";
      List<String> files = new ArrayList<>();
      for (JsonNode f : m.get("files")) {
        String key = f.get("key").asText();
        files.add(
            onS3
                ? "s3://" + destination + "/" + key
                : dataDir + key.substring(key.lastIndexOf('/') + 1));
      }
      List<String> columns =
          format.equals("CSV") ? csvColumns(m.get("fileSchema").asText()) : List.of();
      if (format.equals("CSV")
          && (!columns.contains("key") || !columns.contains("lastmodifieddate"))) {
        throw new UsageException("listing " + location
            + ": the inventory's fileSchema has no Key or LastModifiedDate field");
      }
      return new S3Report(
          location, taken, format, m.get("sourceBucket").asText(), columns, List.copyOf(files), io);
    }

    private static List<String> csvColumns(String schema) {
      List<String> out = new ArrayList<>();
      for (String c : schema.split(",")) {
        out.add(c.trim().toLowerCase(Locale.ROOT));
      }
      return out;
    }

    @Override
    public void forEach(Consumer<FileInfo> sink) {
      for (String f : dataFiles) {
        if (format.equals("CSV")) {
          readCsv(f, sink);
        } else {
          readParquet(f, sink);
        }
      }
    }

    private void readCsv(String file, Consumer<FileInfo> sink) {
      int bucket = columns.indexOf("bucket");
      int key = columns.indexOf("key");
      int size = columns.indexOf("size");
      int modified = columns.indexOf("lastmodifieddate");
      int latest = columns.indexOf("islatest");
      int marker = columns.indexOf("isdeletemarker");
      try (InputStream raw = io.newInputFile(file).newStream();
          InputStream in = file.endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
          BufferedReader r =
              new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
        String line;
        List<String> fields = new ArrayList<>(columns.size());
        while ((line = r.readLine()) != null) {
          if (line.isEmpty()) {
            continue;
          }
          csvFields(line, fields);
          if (fields.size() < columns.size()) {
            throw new UsageException("listing " + file + ": a row has " + fields.size()
                + " fields, the schema " + columns.size());
          }
          if ((latest >= 0 && "false".equalsIgnoreCase(fields.get(latest)))
              || (marker >= 0 && "true".equalsIgnoreCase(fields.get(marker)))) {
            continue;
          }
          String b = bucket >= 0 ? fields.get(bucket) : sourceBucket;
          String k = URLDecoder.decode(fields.get(key), StandardCharsets.UTF_8);
          long bytes =
              size < 0 || fields.get(size).isEmpty() ? 0 : Long.parseLong(fields.get(size));
          sink.accept(
              new FileInfo("s3://" + b + "/" + k, bytes, instant(fields.get(modified), file)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read inventory file " + file, e);
      }
    }

    /** S3's Parquet columns, read by Iceberg's Parquet reader through a name mapping (the files carry no field ids). */
    private static final Schema PARQUET = new Schema(
        Types.NestedField.optional(1, "bucket", Types.StringType.get()),
        Types.NestedField.optional(2, "key", Types.StringType.get()),
        Types.NestedField.optional(3, "size", Types.LongType.get()),
        Types.NestedField.optional(4, "last_modified_date", Types.TimestampType.withZone()),
        Types.NestedField.optional(5, "is_latest", Types.BooleanType.get()),
        Types.NestedField.optional(6, "is_delete_marker", Types.BooleanType.get()));

    private void readParquet(String file, Consumer<FileInfo> sink) {
      try (CloseableIterable<Record> rows = Parquet.read(io.newInputFile(file))
          .project(PARQUET)
          .withNameMapping(MappingUtil.create(PARQUET))
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(PARQUET, fileSchema))
          .build()) {
        for (Record r : rows) {
          if (Boolean.FALSE.equals(r.getField("is_latest"))
              || Boolean.TRUE.equals(r.getField("is_delete_marker"))
              || r.getField("key") == null) {
            continue;
          }
          String b = r.getField("bucket") != null ? (String) r.getField("bucket") : sourceBucket;
          long bytes = r.getField("size") instanceof Long l ? l : 0;
          long modified = r.getField("last_modified_date") instanceof OffsetDateTime t
              ? t.toInstant().toEpochMilli()
              : 0;
          sink.accept(new FileInfo("s3://" + b + "/" + r.getField("key"), bytes, modified));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read inventory file " + file, e);
      }
    }
  }

  /**
   * A plain list, one file a line: {@code LOCATION<TAB>SIZE<TAB>MODIFIED} (a comma may stand for
   * the tab; MODIFIED in milliseconds since the epoch, in seconds with a fraction as
   * {@code find -printf '%p\t%s\t%T@\n'} writes it, or ISO-8601). A first line
   * {@code # taken-at: <ISO-8601>} says when the listing was taken; without it, the newest
   * modification time listed stands for that time (every file older than it that existed was
   * listed, which a complete listing guarantees). Other lines starting with {@code #} are comments.
   */
  record PlainList(String source, long takenAtMillis, FileIO io) implements Inventory {
    static PlainList read(String location, FileIO io) {
      long[] newest = {0};
      Long declared = header(location, io);
      if (declared == null) {
        lines(location, io, f -> newest[0] = Math.max(newest[0], f.createdAtMillis()));
      }
      return new PlainList(location, declared != null ? declared : newest[0], io);
    }

    private static Long header(String location, FileIO io) {
      try (BufferedReader r = reader(location, io)) {
        String first = r.readLine();
        if (first != null && first.startsWith("#")) {
          String body = first.substring(1).trim();
          if (body.toLowerCase(Locale.ROOT).startsWith("taken-at:")) {
            return instant(body.substring("taken-at:".length()).trim(), location);
          }
        }
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void forEach(Consumer<FileInfo> sink) {
      lines(source, io, sink);
    }

    private static BufferedReader reader(String location, FileIO io) throws IOException {
      InputStream raw = io.newInputFile(location).newStream();
      InputStream in = location.endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }

    private static void lines(String location, FileIO io, Consumer<FileInfo> sink) {
      try (BufferedReader r = reader(location, io)) {
        String line;
        long n = 0;
        while ((line = r.readLine()) != null) {
          n++;
          if (line.isBlank() || line.startsWith("#")) {
            continue;
          }
          char sep = line.indexOf('\t') >= 0 ? '\t' : ',';
          int a = line.lastIndexOf(sep);
          int b = a <= 0 ? -1 : line.lastIndexOf(sep, a - 1);
          if (b <= 0) {
            throw new UsageException(
                "listing " + location + " line " + n + ": expected LOCATION, SIZE and MODIFIED");
          }
          long size;
          try {
            size = Long.parseLong(line.substring(b + 1, a).trim());
          } catch (NumberFormatException e) {
            throw new UsageException("listing " + location + " line " + n + ": size '"
                + line.substring(b + 1, a).trim() + "' is not a number");
          }
          sink.accept(new FileInfo(
              line.substring(0, b).trim(), size, instant(line.substring(a + 1).trim(), location)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read listing " + location, e);
      }
    }
  }

  /** Milliseconds since the epoch, seconds since the epoch with a fraction ({@code find -printf %T@}), or an ISO-8601 instant. */
  private static long instant(String text, String where) {
    if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
      return Long.parseLong(text);
    }
    int dot = text.indexOf('.');
    if (dot > 0
        && text.chars().allMatch(c -> Character.isDigit(c) || c == '.')
        && dot == text.lastIndexOf('.')) {
      return new java.math.BigDecimal(text).movePointRight(3).longValue();
    }
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new UsageException("listing " + where + ": '" + text
          + "' is neither epoch milliseconds nor an ISO-8601 instant");
    }
  }

  /** One CSV line into {@code out}: fields optionally in double quotes, {@code ""} an escaped quote. */
  private static void csvFields(String line, List<String> out) {
    out.clear();
    StringBuilder b = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          b.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          b.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(b.toString());
        b.setLength(0);
      } else {
        b.append(c);
      }
    }
    out.add(b.toString());
  }
}
