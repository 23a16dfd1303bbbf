package dev.resurfacer.scanreports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScanReportCollectorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "user_id", Types.LongType.get()),
      Types.NestedField.optional(2, "event", Types.StringType.get()));

  @TempDir
  Path dir;

  /** Ten files covering user_id 0-99, 100-199, ...: a real scan planned by Iceberg with the collector as its catalog's reporter. */
  private Table table(Map<String, String> collectorProps) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    Map<String, String> props = new java.util.HashMap<>(collectorProps);
    props.put(CatalogProperties.METRICS_REPORTER_IMPL, ScanReportCollector.class.getName());
    props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("wh").toString());
    catalog.initialize("test", props);
    catalog.createNamespace(Namespace.of("db"));
    Table t =
        catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA, PartitionSpec.unpartitioned());
    var append = t.newAppend();
    for (int i = 0; i < 10; i++) {
      append.appendFile(file(i));
    }
    append.commit();
    return catalog.loadTable(TableIdentifier.of("db", "t"));
  }

  private static DataFile file(int i) {
    Metrics m = new Metrics(
        100L,
        null,
        Map.of(1, 100L),
        Map.of(1, 0L),
        null,
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 100L)),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 100L + 99)));
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/data/f" + i + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1000 + i)
        .withMetrics(m)
        .build();
  }

  private static int plan(Table t, org.apache.iceberg.expressions.Expression filter)
      throws IOException {
    int n = 0;
    try (CloseableIterable<FileScanTask> tasks =
        t.newScan().filter(filter).select("event").planFiles()) {
      for (FileScanTask ignored : tasks) {
        n++;
      }
    }
    return n;
  }

  private List<JsonNode> lines() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir.resolve("reports"))) {
      for (Path f : files.toList()) {
        for (String line : Files.readAllLines(f)) {
          out.add(JSON.readTree(line));
        }
      }
    }
    return out;
  }

  private List<JsonNode> scanLines() throws Exception {
    for (int i = 0; i < 400; i++) {
      List<JsonNode> l =
          lines().stream().filter(n -> n.path("kind").asText().equals("scan")).toList();
      if (!l.isEmpty()) {
        return l;
      }
      Thread.sleep(10);
    }
    return List.of();
  }

  @Test
  void writesTheScanIcebergPlannedWithItsCountsAndTheSanitizedFilter() throws Exception {
    Table t = table(Map.of(ScanReportCollector.DIR, dir.resolve("reports").toString()));
    assertThat(plan(
            t,
            Expressions.and(
                Expressions.greaterThanOrEqual("user_id", 250L),
                Expressions.lessThan("user_id", 420L))))
        .isEqualTo(3);
    List<JsonNode> scans = scanLines();
    assertThat(scans).hasSize(1);
    JsonNode r = scans.get(0);
    assertThat(r.get("format").asText()).isEqualTo("resurfacer-scan-report");
    assertThat(r.get("table").asText()).endsWith("db.t");
    assertThat(r.get("snapshot-id").asLong()).isEqualTo(t.currentSnapshot().snapshotId());
    assertThat(r.get("data-files-scanned").asLong()).isEqualTo(3);
    assertThat(r.get("data-files-skipped").asLong()).isEqualTo(7);
    assertThat(r.get("bytes-scanned").asLong()).isEqualTo(1002 + 1003 + 1004);
    assertThat(r.get("filter-values").asBoolean()).isFalse();
    assertThat(r.get("filter").get("type").asText()).isEqualTo("and");
    assertThat(r.get("filter").get("left").get("term").asText()).isEqualTo("user_id");
    // Iceberg sanitizes what it hands reporters: no literal leaves the engine unless asked for
    assertThat(r.get("filter").toString()).doesNotContain("250").doesNotContain("420");
    assertThat(r.get("projected-field-names").toString()).contains("event");
  }

  @Test
  void withFilterValuesRecordsTheFilterAsPlanned() throws Exception {
    Table t = table(Map.of(
        ScanReportCollector.DIR,
        dir.resolve("reports").toString(),
        ScanReportCollector.FILTER_VALUES,
        "true"));
    assertThat(plan(
            t,
            Expressions.and(
                Expressions.equal("user_id", 512L), Expressions.in("event", "a\"b", "c"))))
        .isEqualTo(1);
    JsonNode r = scanLines().get(0);
    assertThat(r.get("filter-values").asBoolean()).isTrue();
    JsonNode f = r.get("filter");
    assertThat(f.get("left").get("type").asText()).isEqualTo("eq");
    assertThat(f.get("left").get("value").asLong()).isEqualTo(512L);
    assertThat(f.get("right").get("type").asText()).isEqualTo("in");
    assertThat(f.get("right").get("values").toString()).contains("a\\\"b").contains("\"c\"");
    assertThat(r.get("data-files-scanned").asLong()).isEqualTo(1);
  }

  @Test
  void aFullBufferDropsAndCountsAndNeverLosesTrackOfAReport() throws Exception {
    ScanReportCollector c = new ScanReportCollector();
    c.initialize(Map.of(
        ScanReportCollector.DIR,
        dir.resolve("reports").toString(),
        ScanReportCollector.BUFFER,
        "4"));
    ScanReport report = ImmutableScanReport.builder()
        .tableName("db.t")
        .snapshotId(1)
        .schemaId(0)
        .filter(Expressions.alwaysTrue())
        .scanMetrics(ScanMetricsResult.fromScanMetrics(ScanMetrics.noop()))
        .build();
    for (int i = 0; i < 20_000; i++) {
      c.report(report);
    }
    assertThat(c.awaitWritten(30_000)).isTrue();
    c.close();
    assertThat(c.reported()).isEqualTo(20_000);
    assertThat(c.written() + c.dropped()).isEqualTo(20_000);
    assertThat(c.dropped()).isPositive();
    List<JsonNode> lines = lines();
    assertThat(lines.stream().filter(n -> n.get("kind").asText().equals("scan")).count())
        .isEqualTo(c.written());
    JsonNode last = lines.get(lines.size() - 1);
    assertThat(last.get("kind").asText()).isEqualTo("collector");
    assertThat(last.get("dropped").asLong()).isEqualTo(c.dropped());
  }

  @Test
  void anUnsetDirectoryNeitherThrowsNorWrites() {
    ScanReportCollector c = new ScanReportCollector();
    c.initialize(Map.of());
    c.report(ImmutableScanReport.builder()
        .tableName("db.t")
        .snapshotId(1)
        .schemaId(0)
        .filter(Expressions.alwaysTrue())
        .scanMetrics(ScanMetricsResult.fromScanMetrics(ScanMetrics.noop()))
        .build());
    c.close();
    assertThat(c.dropped()).isEqualTo(1);
    assertThat(c.file()).isNull();
  }
}
