package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.S3Server;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code maintain --yes} over a resurfacer.yml with three catalogs whose warehouses are on local
 * disk, in S3 (s3proxy) and in Azure storage (Azurite), secrets by reference: every table compacted
 * and expired and swept of orphans, rows unchanged, and described after.
 */
class MixedStorageMaintainCliTest {
  @RegisterExtension
  static final S3Server S3 = new S3Server("mixed");

  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("mixed");

  @TempDir
  Path dir;

  @Test
  void oneMaintainRunCoversLocalS3AndAzureCatalogs() throws Exception {
    Map<String, String> s3 = new LinkedHashMap<>(S3.clientProperties());
    Map<String, String> azure = new LinkedHashMap<>(AZURE.fileIoProperties());
    Map<String, CatalogConfig> catalogs = new LinkedHashMap<>();
    catalogs.put(
        "local",
        new CatalogConfig(
            "local",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("local")),
            SqliteCatalogs.warehouse(dir.resolve("local")),
            Map.of(),
            Set.of()));
    catalogs.put(
        "s3lake",
        new CatalogConfig(
            "s3lake",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("s3")),
            S3.warehouse("wh"),
            s3,
            Set.of()));
    catalogs.put(
        "azlake",
        new CatalogConfig(
            "azlake",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("az")),
            AZURE.root() + "/wh",
            azure,
            Set.of()));
    Map<String, List<String>> rowsBefore = new HashMap<>();
    for (CatalogConfig c : catalogs.values()) {
      Catalog catalog = Catalogs.open(c);
      try (Closeable closing = (Closeable) catalog) {
        Table t = Fleet.smallFiles(catalog, "raw", "events", 3);
        rowsBefore.put(c.name(), Rows.sortedStrings(t));
      }
    }
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          local:
            type: jdbc
            uri: %s
            warehouse: %s
          s3lake:
            type: jdbc
            uri: %s
            warehouse: %s
            properties:
              s3.endpoint: %s
              s3.path-style-access: "true"
              s3.access-key-id: %s
              s3.secret-access-key: ${env:S3_SECRET}
              client.region: %s
          azlake:
            type: jdbc
            uri: %s
            warehouse: %s
            properties:
              adls.connection-string.%s: %s
              adls.auth.shared-key.account.name: %s
              adls.auth.shared-key.account.key: ${env:AZURE_KEY}
        defaults:
          compact: {min-input-files: 2}
          expire: {older-than: 0s, retain-last: 1}
          remove-orphans: {older-than: 1d}
        """.formatted(
            catalogs.get("local").uri(),
            catalogs.get("local").warehouse(),
            catalogs.get("s3lake").uri(),
            catalogs.get("s3lake").warehouse(),
            S3.endpoint(),
            S3Server.ACCESS_KEY,
            S3Server.REGION,
            catalogs.get("azlake").uri(),
            catalogs.get("azlake").warehouse(),
            AzuriteServer.DFS_HOST,
            AZURE.endpoint(),
            AzuriteServer.ACCOUNT));

    CliRun r = CliRun.run(
        dir,
        Map.of("S3_SECRET", S3Server.SECRET_KEY, "AZURE_KEY", AzuriteServer.KEY),
        "maintain",
        "--yes",
        "--output",
        "json");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out() + r.err())
        .doesNotContain(S3Server.SECRET_KEY)
        .doesNotContain(AzuriteServer.KEY);
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("summary").get("done").asInt()).as(r.out()).isEqualTo(3);
    for (JsonNode t : json.get("tables")) {
      assertThat(t.get("before").get("data_files").asLong()).as(t.toString()).isEqualTo(3);
      assertThat(t.get("after").get("data_files").asLong()).as(t.toString()).isEqualTo(1);
      assertThat(t.get("after").get("snapshots").asLong()).isEqualTo(1);
      List<String> ops = new java.util.ArrayList<>();
      t.get("operations")
          .forEach(
              o -> ops.add(o.get("operation").asText() + "=" + o.get("outcome").asText()));
      assertThat(ops)
          .as(t.toString())
          .contains("compact=done", "expire=done")
          .anyMatch(o -> o.startsWith("remove-orphans="));
    }
    for (CatalogConfig c : catalogs.values()) {
      Catalog catalog = Catalogs.open(c);
      try (Closeable closing = (Closeable) catalog) {
        Table t = catalog.loadTable(TableIdentifier.of("raw", "events"));
        assertThat(Rows.sortedStrings(t)).as(c.name()).isEqualTo(rowsBefore.get(c.name()));
      }
    }
    assertThat(AZURE.objects(AZURE.root() + "/wh/raw/events")).anyMatch(o -> o.contains("/data/"));
    // describe reads each table through its catalog's storage
    for (String c : catalogs.keySet()) {
      CliRun d = CliRun.run(
          dir,
          Map.of("S3_SECRET", S3Server.SECRET_KEY, "AZURE_KEY", AzuriteServer.KEY),
          "describe",
          "raw.events",
          "--catalog",
          c,
          "--output",
          "json");
      assertThat(d.exitCode()).as(c + ": " + d.err()).isZero();
      JsonNode described = new ObjectMapper().readTree(d.out());
      assertThat(described.get("data_files").asLong()).as(c).isEqualTo(1);
      assertThat(described.get("snapshots").asInt()).as(c).isEqualTo(1);
    }
  }
}
