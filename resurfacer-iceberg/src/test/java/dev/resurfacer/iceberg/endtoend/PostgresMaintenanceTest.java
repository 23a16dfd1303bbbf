package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.PostgresServer;
import dev.resurfacer.iceberg.testing.RecordingFileIO;
import dev.resurfacer.iceberg.testing.S3Server;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every operation on tables in an Iceberg JDBC catalog on PostgreSQL: one local warehouse, one on S3. */
class PostgresMaintenanceTest {
  @RegisterExtension
  static final S3Server S3 = new S3Server();

  @TempDir
  Path dir;

  /** A fresh catalog name per test: JDBC catalogs scope tables by name, and the database outlives runs. */
  static String catalogName() {
    return "pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  static Catalog open(PostgresServer pg, String warehouse, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(extra);
    props.put("jdbc.user", pg.user());
    props.put("jdbc.password", pg.password());
    return Catalogs.open(
        new CatalogConfig(catalogName(), "jdbc", pg.url(), warehouse, props, Set.of()));
  }

  @Test
  void localWarehouse() throws Exception {
    PostgresServer pg = PostgresServer.require();
    Catalog catalog = open(pg, dir.resolve("warehouse").toString(), Map.of());
    try (Closeable c = (Closeable) catalog) {
      Path scratch = Files.createDirectories(dir.resolve("scratch"));
      var scenario = new MaintenanceScenario(catalog, PostgresMaintenanceTest::localFiles, scratch);
      Table table = scenario.messyTable("e2e", "orders");
      scenario.maintain(TableIdentifier.of("e2e", "orders"), table);
    }
  }

  @Test
  void s3Warehouse() throws Exception {
    PostgresServer pg = PostgresServer.require();
    Map<String, String> props = new HashMap<>(S3.clientProperties());
    props.put("io-impl", RecordingFileIO.class.getName());
    String name = catalogName();
    Catalog catalog = open(pg, S3.warehouse(name), props);
    try (Closeable c = (Closeable) catalog) {
      Path scratch = Files.createDirectories(dir.resolve("scratch"));
      var scenario = new MaintenanceScenario(catalog, S3::objects, scratch);
      Table table = scenario.messyTable("e2e", "orders");
      assertThat(table.location()).startsWith("s3://");
      scenario.maintain(TableIdentifier.of("e2e", "orders"), table);
    }
  }

  static Set<String> localFiles(String location) {
    Set<String> out = new TreeSet<>();
    try (var walk = Files.walk(Disk.path(location))) {
      walk.filter(Files::isRegularFile).forEach(p -> out.add(p.toString()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }
}
