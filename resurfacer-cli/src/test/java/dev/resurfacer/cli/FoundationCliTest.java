package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FoundationCliTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()));

  @TempDir
  Path dir;

  /** A table made by Iceberg's own JdbcCatalog, described through the ad-hoc catalog flags. */
  @Test
  void describesATableInASqliteCatalogMadeByAnotherWriter() throws Exception {
    Path catDir = dir.resolve("other");
    JdbcCatalog catalog = SqliteCatalogs.create("other", catDir);
    catalog.createNamespace(Namespace.of("sales"));
    Table table = catalog
        .buildTable(TableIdentifier.of("sales", "events"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("day").build())
        .create();
    long bytes = 0;
    for (int i = 0; i < 4; i++) {
      var file = TableWrites.writeData(table, rows(i * 10, 10)).get(0);
      bytes += file.fileSizeInBytes();
      table.newAppend().appendFile(file).commit();
    }
    catalog.close();

    CliRun r = CliRun.run(
        dir,
        "describe",
        "sales.events",
        "--catalog-name",
        "other",
        "--catalog-uri",
        SqliteCatalogs.uri(catDir),
        "--warehouse",
        SqliteCatalogs.warehouse(catDir),
        "--output",
        "json");
    assertThat(r.err()).isEmpty();
    assertThat(r.exitCode()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("table").asText()).isEqualTo("sales.events");
    assertThat(json.get("format_version").asInt()).isEqualTo(2);
    assertThat(json.get("snapshots").asInt()).isEqualTo(4);
    assertThat(json.get("data_files").asLong()).isEqualTo(4);
    assertThat(json.get("data_bytes").asLong()).isEqualTo(bytes);
    assertThat(json.get("delete_files").asLong()).isZero();
    assertThat(json.get("position_delete_files").asLong()).isZero();
    assertThat(json.get("equality_delete_files").asLong()).isZero();
    assertThat(json.get("manifests").asLong()).isEqualTo(4);
    assertThat(json.get("metadata_files").asInt()).isEqualTo(5);

    CliRun text = CliRun.run(
        dir,
        "describe",
        "sales.events",
        "--catalog-name",
        "other",
        "--catalog-uri",
        SqliteCatalogs.uri(catDir),
        "--warehouse",
        SqliteCatalogs.warehouse(catDir));
    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).contains("data files         4 files").contains("snapshots          4");
  }

  @Test
  void unknownTableIsOneLineExitTwoAndCreatesNothingOutsideTheCatalog() {
    CliRun r = CliRun.run(dir, "describe", "nope.missing");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("error: table nope.missing does not exist in catalog 'resurfacer'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badTableNameAndBadFlagsAreUsageErrors() {
    CliRun r = CliRun.run(dir, "describe", "justatable");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("error: table must be written namespace.table (got 'justatable')");
    assertThat(Files.exists(dir.resolve("resurfacer-data"))).isFalse();

    CliRun flag = CliRun.run(dir, "describe", "a.b", "--frobnicate");
    assertThat(flag.exitCode()).isEqualTo(2);
    assertThat(flag.err().lines().count()).isEqualTo(1);
    assertThat(flag.err()).contains("Unknown option: '--frobnicate'");
  }

  @Test
  void configErrorsAreOneLineWithTheKeyPath() throws Exception {
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: jdbc\n    urii: jdbc:sqlite:x.db\n");
    CliRun r = CliRun.run(dir, "describe", "a.b");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("error: ").contains("unknown key 'catalogs.lake.urii'");
    assertThat(r.err().lines().count()).isEqualTo(1);
  }

  @Test
  void unreachableCatalogIsAUsageError() {
    CliRun r = CliRun.run(
        dir, "describe", "a.b", "--catalog-uri", "jdbc:sqlite:/proc/forbidden/dir/catalog.db");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().lines().count()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: cannot ");
  }

  @Test
  void secretsGivenByReferenceNeverAppearInOutput() throws Exception {
    String secret = "s3cr3t-Value-That-Must-Not-Leak";
    Files.writeString(
        dir.resolve("resurfacer.yml"), """
        catalogs:
          lake:
            type: jdbc
            uri: jdbc:sqlite:%s
            warehouse: %s
            properties:
              jdbc.password: ${env:LAKE_PASSWORD}
        """.formatted(dir.resolve("c.db"), dir.resolve("wh")));
    CliRun doctor = CliRun.run(dir, Map.of("LAKE_PASSWORD", secret), "doctor", "--verbose");
    CliRun json = CliRun.run(dir, Map.of("LAKE_PASSWORD", secret), "doctor", "--output", "json");
    CliRun missing =
        CliRun.run(dir, Map.of("LAKE_PASSWORD", secret), "describe", "x.y", "--verbose");
    for (CliRun r : List.of(doctor, json, missing)) {
      assertThat(r.out() + r.err()).doesNotContain(secret);
    }
    assertThat(doctor.exitCode()).isZero();
    assertThat(doctor.out())
        .contains("ok   catalog")
        .contains("ok   duckdb")
        .contains("ok   warehouse");
  }

  @Test
  void doctorReportsCapabilitiesAsJson() throws Exception {
    CliRun r = CliRun.run(dir, "doctor", "--output", "json");
    assertThat(r.exitCode()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("checks").size()).isGreaterThanOrEqualTo(6);
    assertThat(json.get("capabilities").findValuesAsText("operation"))
        .contains("describe", "remove-orphans");
    // no configuration: the embedded default is described, not created
    assertThat(json.get("checks").findValuesAsText("detail"))
        .anyMatch(d -> d.contains("does not exist yet"));
    assertThat(dir.resolve("resurfacer-data")).doesNotExist();
  }

  @Test
  void demoTellsTheWholeStoryWithIdenticalAnswers() {
    CliRun r = CliRun.run(dir, "demo", "--days", "2");
    assertThat(r.err()).isEmpty();
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("day 2 (2026-10-02)").contains("answers identical");

    CliRun next = CliRun.run(dir, "demo", "next-day");
    assertThat(next.out()).startsWith("day 3 (2026-10-03)");
    CliRun describe = CliRun.run(
        dir,
        "describe",
        "shop.orders",
        "--output",
        "json",
        "--catalog-name",
        "demo",
        "--catalog-uri",
        "jdbc:sqlite:" + dir.resolve("resurfacer-demo/catalog.db"),
        "--warehouse",
        dir.resolve("resurfacer-demo/warehouse").toString());
    assertThat(describe.exitCode()).isZero();
    assertThat(describe.out()).contains("\"position_delete_files\" : ");
  }

  static List<Record> rows(int start, int n) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", (long) start + i);
      r.setField("day", java.time.LocalDate.of(2026, 1, 1));
      out.add(r);
    }
    return out;
  }
}
