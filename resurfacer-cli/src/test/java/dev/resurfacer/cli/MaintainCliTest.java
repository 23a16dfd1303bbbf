package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaintainCliTest {
  @TempDir
  Path dir;

  Path lake;
  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    lake = dir.resolve("lake");
    catalog = SqliteCatalogs.create("lake", lake);
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  private void config(String policy) throws Exception {
    Files.writeString(dir.resolve("resurfacer.yml"), catalogYml(lake) + policy);
  }

  /** A resurfacer.yml naming the SQLite catalog at {@code lake} as {@code lake}. */
  static String catalogYml(Path lake) {
    return """
        catalogs:
          lake:
            type: jdbc
            uri: %s
            warehouse: %s
        """.formatted(SqliteCatalogs.uri(lake), SqliteCatalogs.warehouse(lake));
  }

  private String yml() {
    return dir.resolve("resurfacer.yml").toString();
  }

  private CliRun run(String... args) {
    return CliRun.run(dir, args);
  }

  private Map<String, String> metadataLocations(List<String> names) {
    Map<String, String> m = new HashMap<>();
    for (String n : names) {
      Table t = catalog.loadTable(TableIdentifier.parse(n));
      m.put(n, ((HasTableOperations) t).operations().current().metadataFileLocation());
    }
    return m;
  }

  @Test
  void aFleetWithOneBrokenTableIsMaintainedAndExitsOne() throws Exception {
    for (int i = 0; i < 11; i++) {
      Fleet.smallFiles(catalog, "raw", String.format("t%02d", i), 3);
    }
    for (int i = 0; i < 10; i++) {
      Fleet.smallFiles(catalog, "web", String.format("t%02d", i), 3);
    }
    Table broken = catalog.loadTable(TableIdentifier.of("raw", "t05"));
    Files.delete(
        Path.of(((HasTableOperations) broken).operations().current().metadataFileLocation()));
    // remove-orphans is off here: its overlapping-table fence must read every table of the catalog,
    // and refuses while one cannot be read (see aBrokenTableMakesOrphanRemovalElsewhereStopSafely)
    config("""
        defaults:
          compact: {min-input-files: 2}
          expire: {older-than: 0s, retain-last: 1}
          remove-orphans: {enabled: false}
        tables:
          web.*:
            rewrite-manifests: {enabled: false}
        """);

    CliRun r = run(
        "maintain",
        "--yes",
        "--parallel",
        "2",
        "--output",
        "json",
        "--report",
        "out/report.html",
        "--metrics-file",
        "out/resurfacer.prom");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);

    JsonNode json = new ObjectMapper().readTree(r.out());
    List<String> topLevel = new ArrayList<>();
    json.fieldNames().forEachRemaining(topLevel::add);
    assertThat(topLevel)
        .containsExactly(
            "schema_version", "mode", "started_at", "duration_ms", "tables", "summary");
    assertThat(json.get("schema_version").asInt()).isEqualTo(1);
    assertThat(json.get("mode").asText()).isEqualTo("commit");
    assertThat(json.get("summary").toString())
        .isEqualTo(
            "{\"tables\":21,\"done\":20,\"nothing_to_do\":0,\"previewed\":0,\"skipped\":0,\"refused\":0,\"failed\":1}");
    for (JsonNode t : json.get("tables")) {
      List<String> keys = new ArrayList<>();
      t.fieldNames().forEachRemaining(keys::add);
      assertThat(keys)
          .containsExactly(
              "catalog",
              "table",
              "outcome",
              "message",
              "duration_ms",
              "before",
              "after",
              "operations");
      assertThat(t.get("catalog").asText()).isEqualTo("lake");
      if (t.get("table").asText().equals("raw.t05")) {
        assertThat(t.get("outcome").asText()).isEqualTo("failed");
        assertThat(t.get("message").asText())
            .startsWith("cannot open table: ")
            .contains("metadata.json");
        assertThat(t.get("before").isNull()).isTrue();
        continue;
      }
      assertThat(t.get("outcome").asText()).as(t.toString()).isEqualTo("done");
      assertThat(t.get("before").get("data_files").asLong()).isEqualTo(3);
      assertThat(t.get("after").get("data_files").asLong()).isEqualTo(1);
      assertThat(t.get("before").get("snapshots").asLong()).isEqualTo(3);
      assertThat(t.get("after").get("snapshots").asLong()).isEqualTo(1);
      assertThat(t.get("after").get("size_histogram").get(0).fieldNames())
          .toIterable()
          .containsExactly("label", "min_bytes", "max_bytes", "files", "bytes");
      List<String> ops = new ArrayList<>();
      t.get("operations")
          .forEach(
              o -> ops.add(o.get("operation").asText() + "=" + o.get("outcome").asText()));
      if (t.get("table").asText().startsWith("web.")) {
        assertThat(ops)
            .containsExactly(
                "compact=done", "remove-dangling-deletes=nothing_to_do", "expire=done");
      } else {
        assertThat(ops)
            .containsExactly(
                "compact=done",
                "remove-dangling-deletes=nothing_to_do",
                "rewrite-manifests=nothing_to_do",
                "expire=done");
      }
      JsonNode compact = t.get("operations").get(0);
      assertThat(compact.fieldNames())
          .toIterable()
          .containsExactly("operation", "outcome", "message", "duration_ms", "metrics");
      assertThat(compact.get("metrics").get("rewritten_files").asLong()).isEqualTo(3);
    }

    String html = Files.readString(dir.resolve("out/report.html"));
    // one chart per histogram: before and after for each of the 20 maintained tables, none for the
    // broken one
    assertThat(Pattern.compile("<svg ").matcher(html).results().count()).isEqualTo(40);
    assertThat(html).contains("lake.raw.t05").contains("cannot open table");
    assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
    assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("src=");

    String prom = Files.readString(dir.resolve("out/resurfacer.prom"));
    assertThat(prom)
        .contains("resurfacer_maintain_tables{outcome=\"failed\"} 1")
        .contains("resurfacer_maintain_tables{outcome=\"done\"} 20")
        .contains(
            "resurfacer_maintain_table_outcome{catalog=\"lake\",table=\"raw.t05\",outcome=\"failed\"} 1")
        .contains("resurfacer_table_data_files{catalog=\"lake\",table=\"web.t03\"} 1")
        .containsPattern(
            "resurfacer_maintain_operation_duration_seconds\\{catalog=\"lake\",table=\"raw.t00\",operation=\"compact\",outcome=\"done\"} \\d+\\.\\d{3}");
    for (String line : prom.lines().toList()) {
      assertThat(line).matches("# (HELP|TYPE) .*|[a-z_]+(\\{[^}]*})? -?[0-9.]+");
    }
  }

  @Test
  void aBrokenTableMakesOrphanRemovalElsewhereStopSafely() throws Exception {
    Fleet.smallFiles(catalog, "raw", "good", 2);
    Table broken = Fleet.smallFiles(catalog, "raw", "broken", 1);
    Files.delete(
        Path.of(((HasTableOperations) broken).operations().current().metadataFileLocation()));
    config("defaults:\n  compact: {enabled: false}\n");

    CliRun r = run("maintain", "--tables", "raw.*");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out())
        .containsPattern("lake\\.raw\\.broken  failed  .*cannot open table")
        .containsPattern(
            "remove-orphans +refused .*scope: cannot read table raw.broken in catalog 'lake' to check that none of its files lies in this table's storage");
  }

  @Test
  void previewChangesNothingAndSaysSo() throws Exception {
    Fleet.smallFiles(catalog, "raw", "a", 3);
    Fleet.smallFiles(catalog, "web", "b", 3);
    config("defaults:\n  compact: {min-input-files: 2}\n");
    Map<String, String> before = metadataLocations(List.of("raw.a", "web.b"));

    CliRun r = run("maintain", "--tables", "raw.*");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("lake.raw.a  previewed")
        .doesNotContain("web.b")
        .contains("compact                  previewed")
        .contains("would rewrite 3 file(s)")
        .contains("3 data file(s)")
        .contains("preview: 1 table(s): 0 done, 1 previewed, 0 skipped, 0 refused, 0 failed")
        .endsWith("preview only: nothing was changed (pass --yes to maintain)\n");
    assertThat(metadataLocations(List.of("raw.a", "web.b"))).isEqualTo(before);
  }

  @Test
  void aConfigErrorIsExitTwoAndNothingRuns() throws Exception {
    Fleet.smallFiles(catalog, "raw", "a", 3);
    Map<String, String> before = metadataLocations(List.of("raw.a"));
    config("tables:\n  raw.*:\n    compact: {target-file-size: 64MB, min-file-size: 128MB}\n");
    CliRun r = run("maintain", "--yes");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "error: " + yml()
                + ": tables.raw.*.compact: target-file-size (64.0 MB) is below min-file-size (128 MB)\n");
    assertThat(r.out()).isEmpty();

    config("defaults:\n  expire: {older-than: -1d}\n");
    r = run("maintain", "--yes");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "error: " + yml() + ": defaults.expire.older-than must not be negative (got -1d)\n");

    config(
        "defaults:\n  compact: {min-file-size: 100MB}\ntables:\n  raw.a:\n    compact: {target-file-size: 64MB}\n");
    r = run("maintain", "--yes");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "error: the effective policy of raw.a: target-file-size (64.0 MB) is below min-file-size (100 MB)\n");
    assertThat(metadataLocations(List.of("raw.a"))).isEqualTo(before);

    assertThat(run("maintain", "--parallel", "0").exitCode()).isEqualTo(2);
  }

  @Test
  void aTableAnotherRunIsMaintainingIsSkippedWithAMessage() throws Exception {
    Table held = Fleet.smallFiles(catalog, "raw", "held", 3);
    Fleet.smallFiles(catalog, "raw", "free", 3);
    String lease = "resurfacer@otherhost/1234abcd until " + Instant.now().plusSeconds(3600);
    held.updateProperties().set("resurfacer.maintain.lease", lease).commit();
    config("defaults:\n  compact: {min-input-files: 2}\n");

    CliRun r = run("maintain", "--yes");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("lake.raw.held  skipped")
        .contains("another maintain run holds the lease on this table (" + lease + ")")
        .contains("lake.raw.free  done");
    held.refresh();
    assertThat(held.currentSnapshot().operation()).isEqualTo("append");
    assertThat(held.properties()).containsEntry("resurfacer.maintain.lease", lease);
  }

  @Test
  void policyPrintsTheEffectivePolicy() throws Exception {
    config("""
        defaults:
          expire: {older-than: 7d}
        tables:
          raw.*:
            compact: {target-file-size: 128MB}
            remove-orphans: {older-than: 5d}
          raw.events:
            rewrite-manifests: {enabled: false}
        """);
    CliRun text = run("policy", "raw.events");
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .startsWith("raw.events  matched: raw.*, raw.events")
        .contains(
            "compact                  enabled  strategy binpack, {target-file-size-bytes=134217728}")
        .contains("rewrite-manifests        disabled")
        .contains(
            "expire                   enabled  older-than 7d, retain-last table property (history.expire.min-snapshots-to-keep)")
        .contains("remove-orphans           enabled  older-than 5d");

    JsonNode json = new ObjectMapper()
        .readTree(run("policy", "raw.events", "--output", "json").out());
    assertThat(json.get("matched").toString()).isEqualTo("[\"raw.*\",\"raw.events\"]");
    assertThat(json.get("operations").get("remove-orphans").toString())
        .isEqualTo(
            "{\"enabled\":true,\"older-than\":\"5d\",\"quarantine\":false,\"quarantine-retention\":\"7d\"}");
    assertThat(json.get("operations").get("expire").get("retain-last").isNull()).isTrue();

    config("tables:\n  raw.*:\n    rewrite-manifests: {sort-by: [day, bucket]}\n");
    assertThat(run("policy", "raw.events").out())
        .contains("rewrite-manifests        enabled  clustered by day, bucket");
    assertThat(new ObjectMapper()
            .readTree(run("policy", "raw.events", "--output", "json").out())
            .get("operations")
            .get("rewrite-manifests")
            .get("sort-by")
            .toString())
        .isEqualTo("[\"day\",\"bucket\"]");

    config("tables:\n  raw.*:\n    compact: {enabeld: false}\n");
    CliRun bad = run("policy", "raw.events");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err())
        .startsWith(
            "error: " + yml() + ": unknown key 'tables.raw.*.compact.enabeld' (expected one of");
  }

  @Test
  void policyPrintsTheEffectiveTriggersMostSpecificWinning() throws Exception {
    config("""
        defaults:
          triggers: {small-files: 50, since-last-run: 1d}
        tables:
          raw.*:
            triggers: {commits: 200, small-files: 30}
          raw.events:
            triggers: {small-files: 20, operations: [compact]}
          archive.*:
            triggers: {enabled: false}
        """);
    CliRun text = run("policy", "raw.events");
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains(
            "triggers                 any of   commits 200, small-files 20, since-last-run 1d; a fired trigger runs compact");
    JsonNode json = new ObjectMapper()
        .readTree(run("policy", "raw.events", "--output", "json").out());
    assertThat(json.get("triggers").toString())
        .isEqualTo(
            "{\"enabled\":true,\"commits\":200,\"small-files\":20,\"since-last-run\":\"1d\",\"operations\":[\"compact\"]}");

    assertThat(run("policy", "raw.clicks").out())
        .contains(
            "triggers                 any of   commits 200, small-files 30, since-last-run 1d; a fired trigger runs the enabled operations above it calls for");
    assertThat(run("policy", "archive.old").out())
        .contains(
            "triggers                 disabled (serve watches this table, never maintains it)");
    config("defaults:\n  compact: {min-input-files: 2}\n");
    assertThat(run("policy", "raw.events").out())
        .contains(
            "triggers                 none set (serve watches this table, never maintains it)");
  }
}
