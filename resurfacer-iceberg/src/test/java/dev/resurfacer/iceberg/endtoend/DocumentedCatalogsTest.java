package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.PostgresServer;
import dev.resurfacer.iceberg.testing.RestCatalogServer;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.S3Server;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The configuration examples in docs/catalogs.md, parsed as written and used against real servers. */
class DocumentedCatalogsTest {
  @RegisterExtension
  @Order(1)
  static final S3Server S3 = new S3Server();

  @RegisterExtension
  @Order(2)
  static final RestCatalogServer REST = new RestCatalogServer(S3, "lake");

  @TempDir
  Path dir;

  static String example(String name) throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "catalogs.md"));
    Matcher m = Pattern.compile(
            "<!-- example: " + Pattern.quote(name) + " -->\\s*```yaml\\n(.*?)```", Pattern.DOTALL)
        .matcher(doc);
    assertThat(m.find()).as("example %s in docs/catalogs.md", name).isTrue();
    return m.group(1);
  }

  static CatalogConfig parse(String yaml, Map<String, String> env) {
    ResurfacerConfig config = ConfigFile.parse(yaml, "docs/catalogs.md", new Secrets(env));
    return config.catalog(config.defaultCatalog());
  }

  /** Creates a table through the catalog, appends rows and reads them back. */
  static Table roundTrip(Catalog catalog, String table) {
    Table t = Orders.create(catalog, "docs", table, 2);
    var append = t.newAppend();
    TableWrites.writeData(t, Orders.rows(0, 25, 0)).forEach(append::appendFile);
    append.commit();
    t.refresh();
    assertThat(Rows.sortedStrings(t)).hasSize(25);
    return t;
  }

  @Test
  void restWithS3() throws Exception {
    String yaml = example("rest-s3")
        .replace("http://localhost:8181/", REST.uri())
        .replace("http://localhost:9000", S3.endpoint());
    CatalogConfig config = parse(
        yaml,
        Map.of(
            "LAKE_CLIENT_CREDENTIAL", "resurfacer:client-secret",
            "AWS_ACCESS_KEY_ID", S3Server.ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY", S3Server.SECRET_KEY));
    assertThat(config.type()).isEqualTo("rest");
    assertThat(config.toString())
        .doesNotContain(S3Server.SECRET_KEY)
        .doesNotContain("client-secret");
    Catalog catalog = Catalogs.open(config);
    try (Closeable c = (Closeable) catalog) {
      Table t = roundTrip(catalog, "rest_s3");
      assertThat(t.location()).startsWith("s3://warehouse/lake/");
      assertThat(S3.objects(t.location())).isNotEmpty();
    }
  }

  @Test
  void postgres() throws Exception {
    PostgresServer pg = PostgresServer.require();
    String catalogName = "pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String yaml = example("postgres")
        .replace("jdbc:postgresql://localhost:5432/iceberg", pg.url())
        .replace("jdbc.user: iceberg", "jdbc.user: " + pg.user())
        .replace("/var/lib/lake/warehouse", dir.resolve("warehouse").toString())
        .replace("pg:", catalogName + ":")
        .replace("default-catalog: pg", "default-catalog: " + catalogName);
    CatalogConfig config = parse(yaml, Map.of("ICEBERG_DB_PASSWORD", pg.password()));
    assertThat(config.uri()).startsWith("jdbc:postgresql:");
    Catalog catalog = Catalogs.open(config);
    try (Closeable c = (Closeable) catalog) {
      roundTrip(catalog, "pg");
    }
  }

  @Test
  void sqlite() throws Exception {
    String yaml =
        example("sqlite").replace("resurfacer-data/", dir.resolve("resurfacer-data") + "/");
    CatalogConfig config = parse(yaml, Map.of());
    assertThat(config.uri()).startsWith("jdbc:sqlite:");
    Catalog catalog = Catalogs.open(config);
    try (Closeable c = (Closeable) catalog) {
      Table t = roundTrip(catalog, "sqlite");
      assertThat(t.location()).startsWith(dir.toString());
    }
  }
}
