package dev.resurfacer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {
  private static final Secrets NO_ENV = new Secrets(Map.of());

  @TempDir
  Path dir;

  @Test
  void deltaCatalogsMapNamesToLocationsStrictly() {
    String yaml = """
        catalogs:
          lake: {type: hadoop, warehouse: /wh}
          deltas:
            type: delta
            tables:
              raw.events: /data/raw/events
              raw.clicks: s3://bucket/raw/clicks
        """;
    ResurfacerConfig config = ConfigFile.parse(yaml, "resurfacer.yml", NO_ENV);
    assertThat(config.defaultCatalog()).isEqualTo("lake");
    assertThat(config.deltaLocation("raw.events")).contains("/data/raw/events");
    assertThat(config.deltaLocation("raw.clicks")).contains("s3://bucket/raw/clicks");
    assertThat(config.deltaLocation("raw.other")).isEmpty();
    assertThat(config.catalog("deltas").isDelta()).isTrue();

    assertError(
        "catalogs:\n  d:\n    type: delta\n",
        "resurfacer.yml: catalogs.d.tables or catalogs.d.discover is required for a delta catalog");
    assertError(
        "catalogs:\n  d:\n    type: delta\n    uri: x\n    tables: {a.b: /x}\n",
        "resurfacer.yml: unknown key 'catalogs.d.uri' (expected one of discover, properties, tables, type)");
    assertThat(ConfigFile.parse(
                "catalogs:\n  d: {type: delta, discover: /lake}\n", "resurfacer.yml", NO_ENV)
            .catalog("d")
            .discover())
        .containsExactly("/lake");
    assertThat(ConfigFile.parse(
                "catalogs:\n  d: {type: delta, discover: [/a, 'file:/b'], tables: {x.y: /c}}\n",
                "resurfacer.yml",
                NO_ENV)
            .catalog("d")
            .discover())
        .containsExactly("/a", "file:/b");
    assertError(
        "catalogs:\n  d: {type: delta, discover: [1]}\n",
        "resurfacer.yml: catalogs.d.discover must be a location or a list");
    assertThat(ConfigFile.parse(
                "catalogs:\n  d: {type: delta, discover: ['s3://b/lake', 's3a://b/more']}\n",
                "resurfacer.yml",
                NO_ENV)
            .catalog("d")
            .discover())
        .containsExactly("s3://b/lake", "s3a://b/more");
    assertError(
        "catalogs:\n  d: {type: delta, discover: 'gs://b/lake'}\n",
        "resurfacer.yml: catalogs.d.discover: gs://b/lake: only local roots");
    assertError(
        "catalogs:\n  d:\n    type: delta\n    tables: {events: /x}\n",
        "resurfacer.yml: catalogs.d.tables.events: a table name is namespace.table");
    assertError(
        "catalogs:\n  d:\n    type: delta\n    tables: {raw.*: /x}\n",
        "resurfacer.yml: catalogs.d.tables.raw.*: a table name is namespace.table");
    assertError(
        "catalogs:\n  d:\n    type: delta\n    tables: {a.b: [1]}\n",
        "resurfacer.yml: catalogs.d.tables.a.b must be the table's location");
    assertError(
        "catalogs:\n  d: {type: delta, tables: {a.b: /x}}\n  e: {type: delta, tables: {a.b: /y}}\n",
        "resurfacer.yml: table a.b is named in both delta catalogs d and e");
    assertError(
        "catalogs:\n  d: {type: delta, tables: {a.b: /x}}\ndefault-catalog: d\n",
        "resurfacer.yml: default-catalog 'd' is a delta catalog");
    assertThat(ConfigFile.parse("catalogs:\n  d: {type: delta, tables: {a.b: /x}}\n", "r", NO_ENV)
            .defaultCatalog())
        .isNull();
  }

  @Test
  void readsNamedCatalogsAndResolvesSecretsByReference() throws Exception {
    Path secretFile = dir.resolve("token");
    Files.writeString(secretFile, "file-secret-value\n");
    String yaml = """
        catalogs:
          lake:
            type: jdbc
            uri: jdbc:postgresql://db:5432/iceberg
            warehouse: s3://bucket/wh
            properties:
              jdbc.user: iceberg
              jdbc.password: ${env:PGPASS}
              token: ${file:%s}
          rest:
            type: rest
            uri: https://catalog.example.com
        default-catalog: lake
        """.formatted(secretFile);
    ResurfacerConfig config =
        ConfigFile.parse(yaml, "resurfacer.yml", new Secrets(Map.of("PGPASS", "env-secret-value")));
    CatalogConfig lake = config.catalog("lake");
    assertThat(config.defaultCatalog()).isEqualTo("lake");
    assertThat(lake.properties())
        .containsEntry("jdbc.password", "env-secret-value")
        .containsEntry("token", "file-secret-value");
    assertThat(lake.toString())
        .doesNotContain("env-secret-value")
        .doesNotContain("file-secret-value")
        .contains("jdbc.user=iceberg");
    assertThat(config.catalog("rest").type()).isEqualTo("rest");
  }

  @Test
  void errorsNameTheFileAndTheKeyPath() {
    assertError(
        "catalogs:\n  a:\n    type: jdbc\n    uri: jdbc:sqlite:x\n    warehous: /tmp\n",
        "resurfacer.yml: unknown key 'catalogs.a.warehous' (expected one of properties, type, uri, warehouse)");
    assertError(
        "catalog: {}\n",
        "resurfacer.yml: unknown key 'catalog' (expected one of catalogs, default-catalog, defaults, engines, serve, tables)");
    assertError(
        "catalogs:\n  a:\n    type: glue\n",
        "resurfacer.yml: catalogs.a.type 'glue' is not one of jdbc, rest, hadoop, delta");
    assertError(
        "catalogs:\n  a:\n    type: jdbc\n",
        "resurfacer.yml: catalogs.a.uri is required for a jdbc catalog");
    assertError(
        "catalogs:\n  a:\n    type: jdbc\n    uri: [1, 2]\n",
        "resurfacer.yml: catalogs.a.uri must be a single value, not a array");
    assertError(
        "catalogs:\n  a:\n    type: jdbc\n    uri: x\n    properties:\n      p: ${env:NOPE}\n",
        "catalogs.a.properties.p: environment variable NOPE is not set");
    assertError("catalogs: [\n", "resurfacer.yml: malformed YAML");
    assertError(
        "catalogs:\n  a: {type: hadoop, warehouse: /w}\ndefault-catalog: b\n",
        "resurfacer.yml: default-catalog 'b' is not one of catalogs");
  }

  @Test
  void selectionPrecedenceFlagsThenEnvironmentThenFileThenEmbedded() throws Exception {
    Files.writeString(
        dir.resolve("resurfacer.yml"), "catalogs:\n  fromfile: {type: hadoop, warehouse: /wh}\n");
    Path home = dir.resolve("home");
    CatalogSelection none = new CatalogSelection(null, null, null, null, null);
    assertThat(none.resolve(Map.of(), dir, home).name()).isEqualTo("fromfile");
    assertThat(none.resolve(Map.of("RESURFACER_CATALOG_URI", "jdbc:sqlite:/x.db"), dir, home)
            .uri())
        .isEqualTo("jdbc:sqlite:/x.db");
    CatalogSelection flags =
        new CatalogSelection(null, null, "mine", "http://localhost:8181", "s3://b/w");
    CatalogConfig c =
        flags.resolve(Map.of("RESURFACER_CATALOG_URI", "jdbc:sqlite:/x.db"), dir, home);
    assertThat(c)
        .extracting(CatalogConfig::name, CatalogConfig::type, CatalogConfig::warehouse)
        .containsExactly("mine", "rest", "s3://b/w");

    Path empty = dir.resolve("empty");
    Files.createDirectories(empty);
    CatalogConfig embedded = none.resolve(Map.of(), empty, home);
    assertThat(embedded.uri())
        .isEqualTo("jdbc:sqlite:" + empty.resolve("resurfacer-data/catalog.db"));
    assertThat(embedded.warehouse())
        .isEqualTo(empty.resolve("resurfacer-data/warehouse").toString());
    assertThatThrownBy(() -> new CatalogSelection(null, null, null, "thrift://hms:9083", null)
            .resolve(Map.of(), dir, home))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--catalog-uri must start with jdbc: or http(s)://");
    assertThatThrownBy(
            () -> new CatalogSelection(null, "nope", null, null, null).resolve(Map.of(), dir, home))
        .hasMessage("no catalog named 'nope' in the configuration (known: fromfile)");
  }

  @Test
  void redactsPasswordsInUris() {
    assertThat(Secrets.redactUri("jdbc:postgresql://u:pw@h/db?password=pw2&x=1"))
        .isEqualTo("jdbc:postgresql://****@h/db?password=****&x=1");
  }

  private static void assertError(String yaml, String message) {
    assertThatThrownBy(() -> ConfigFile.parse(yaml, "resurfacer.yml", NO_ENV))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith(message);
  }
}
