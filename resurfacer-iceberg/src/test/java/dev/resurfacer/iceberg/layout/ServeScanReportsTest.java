package dev.resurfacer.iceberg.layout;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.policy.Policies;
import dev.resurfacer.policy.PolicyParser;
import dev.resurfacer.scanreports.ScanReportCollector;
import dev.resurfacer.serve.MaintenanceService;
import dev.resurfacer.serve.RunHistory;
import dev.resurfacer.serve.ServeHttp;
import dev.resurfacer.serve.ServeSettings;
import dev.resurfacer.serve.ServedCatalog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve takes scan reports: a real serve HTTP server on loopback (token set), an engine's catalog
 * whose collector posts to it, real scans planned by Iceberg; the reports land in the table's
 * {@code compact.scan-reports} directory, and the dashboard's advice (JSON and page) is the same as
 * {@code advise} from those files.
 */
class ServeScanReportsTest {
  private static final String TOKEN = "s3cret-token-for-the-test";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void theCollectorPostsToServeAndTheDashboardAdvisesFromTheReports() throws Exception {
    Path reports = dir.resolve("reports");
    JdbcCatalog writer = SqliteCatalogs.create("lake", dir.resolve("lake"));
    LayoutFromScanReportsTest.eventsTable(writer);
    Policies policies = PolicyParser.parse(
        new ObjectMapper(new YAMLFactory())
            .readTree("compact: {scan-reports: '" + reports + "', layout-min-gain: 0.2}\n"),
        null,
        "test");
    ServedCatalog<?> served = ServedCatalog.of(
        IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake"))));
    RunHistory history = RunHistory.open(dir.resolve("history.db").toString(), null, null);
    try (MaintenanceService service = new MaintenanceService(
            List.of(served), policies, ServeSettings.DEFAULTS, history, Clock.systemUTC(), false);
        ServeHttp http = ServeHttp.start(service, "127.0.0.1", 0, TOKEN)) {
      service.evaluate();
      String base = "http://127.0.0.1:" + http.port();

      // the same auth as the dashboard's writes: a token, and no form from another origin
      String line =
          "{\"format\":\"resurfacer-scan-report\",\"kind\":\"scan\",\"table\":\"lake.db.events\",\"data-files-scanned\":40,"
              + "\"time\":\"2026-12-01T00:00:00Z\",\"filter\":{\"type\":\"eq\",\"term\":\"user_id\",\"value\":5}}";
      assertThat(post(base, line, null, null).statusCode()).isEqualTo(401);
      assertThat(post(base, line, TOKEN, "http://evil.example").statusCode()).isEqualTo(403);
      assertThat(reports).doesNotExist();
      assertThat(HTTP.send(
                  HttpRequest.newBuilder(URI.create(base + "/v1/scan-reports"))
                      .header("Authorization", "Bearer " + TOKEN)
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode())
          .isEqualTo(405);
      // too big: refused whole, nothing written
      String big = (line + "\n").repeat(8 * 1024 * 1024 / line.length() + 10);
      assertThat(post(base, big, TOKEN, null).statusCode()).isEqualTo(413);
      assertThat(reports).doesNotExist();
      // malformed, foreign, of an unknown table: skipped and counted, the good line kept
      HttpResponse<String> mixed = post(
          base,
          line + "\nnot json\n{\"hello\":1}\n" + line.replace("lake.db.events", "lake.db.nope")
              + "\n\n",
          TOKEN,
          null);
      assertThat(mixed.statusCode()).as(mixed.body()).isEqualTo(200);
      JsonNode counts = JSON.readTree(mixed.body());
      assertThat(counts.get("accepted").asLong()).isEqualTo(1);
      assertThat(counts.get("skipped").asLong()).isEqualTo(2);
      assertThat(counts.get("unknown-table").asLong()).isEqualTo(1);
      assertThat(ScanReports.read(reports, "db.events").scans()).hasSize(1);
      try (var tree = Files.walk(reports)) {
        tree.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }

      // the engine: its own catalog, the collector posting to serve, configured by catalog
      // properties only
      JdbcCatalog engine = LayoutFromScanReportsTest.engineCatalog(
          dir.resolve("lake"),
          Map.of(
              ScanReportCollector.URI,
              base + "/v1/scan-reports",
              ScanReportCollector.TOKEN,
              TOKEN));
      LayoutFromScanReportsTest.replay(engine, LayoutFromScanReportsTest.queries(200));
      LayoutFromScanReportsTest.awaitLines(reports, 200);
      engine.close();
      try (Stream<Path> files = Files.list(reports)) {
        assertThat(files.map(p -> p.getFileName().toString()).toList())
            .singleElement()
            .asString()
            .startsWith("serve-scan-reports-");
      }
      ScanReports.Loaded loaded = ScanReports.read(reports, "db.events");
      assertThat(loaded.scans()).hasSize(200);
      assertThat(loaded.skipped()).isZero();
      assertThat(loaded.scans()).allSatisfy(s -> assertThat(s.filterValues()).isTrue());

      // the dashboard's advice is advise's, from the files serve wrote
      Advice expected = IcebergLayouts.advise(
          "db.events", writer.loadTable(TableIdentifier.of("db", "events")), loaded, 0.2);
      assertThat(expected.recommendation()).isNotNull();
      HttpResponse<String> json = get(base + "/v1/advice?catalog=lake&table=db.events");
      assertThat(json.statusCode()).as(json.body()).isEqualTo(200);
      JsonNode a = JSON.readTree(json.body()).get("advice");
      assertThat(a.get("scans").asInt()).isEqualTo(200);
      assertThat(a.get("reason").asText()).isEqualTo(expected.reason());
      assertThat(a.at("/recommendation/order_by").asText())
          .isEqualTo(expected.recommendation().orderBy());
      assertThat(a.at("/recommendation/expected_files_per_query").asDouble())
          .isEqualTo(expected.recommendation().expectedFilesPerQuery());
      assertThat(a.at("/current/files_per_query").asDouble())
          .isEqualTo(expected.current().filesPerQuery());

      HttpResponse<String> page = get(base + "/advice?catalog=lake&table=db.events");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body())
          .contains("Recommend: </b>" + dev.resurfacer.report.HtmlReport.esc(expected.reason()))
          .contains("<td>user_id</td>");
      assertThat(get(base + "/").body())
          .contains("href=\"/advice?catalog=lake&amp;table=db.events\"");
      assertThat(get(base + "/v1/advice?catalog=lake&table=db.nope").statusCode())
          .isEqualTo(404);
      assertThat(HTTP.send(
                  HttpRequest.newBuilder(
                          URI.create(base + "/v1/advice?catalog=lake&table=db.events"))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode())
          .isEqualTo(401);
    }
    writer.close();
  }

  @Test
  void aServeThatIsDownCostsTheEngineNothingAndIsCountedAsFailed() throws Exception {
    int port;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    JdbcCatalog writer = SqliteCatalogs.create("lake", dir.resolve("lake"));
    LayoutFromScanReportsTest.eventsTable(writer);
    ScanReportCollector collector = new ScanReportCollector();
    collector.initialize(Map.of(ScanReportCollector.URI, "http://127.0.0.1:" + port));
    JdbcCatalog engine = new JdbcCatalog();
    engine.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    engine.initialize(
        "lake",
        Map.of(
            CatalogProperties.URI, SqliteCatalogs.uri(dir.resolve("lake")),
            CatalogProperties.WAREHOUSE_LOCATION, SqliteCatalogs.warehouse(dir.resolve("lake"))));
    var table = engine.loadTable(TableIdentifier.of("db", "events"));
    int planned = 0;
    for (var q : LayoutFromScanReportsTest.queries(20)) {
      try (var tasks = table.newScan().filter(q).metricsReporter(collector).planFiles()) {
        for (var ignored : tasks) {
          planned++;
        }
      }
    }
    assertThat(planned).isPositive();
    assertThat(collector.awaitWritten(60_000)).isTrue();
    assertThat(collector.reported()).isEqualTo(20);
    assertThat(collector.written()).isZero();
    assertThat(collector.failed() + collector.dropped()).isEqualTo(20);
    collector.close();
    engine.close();
    writer.close();
  }

  private static HttpResponse<String> post(String base, String body, String token, String origin)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/scan-reports"))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (origin != null) {
      b.header("Origin", origin);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + TOKEN)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
