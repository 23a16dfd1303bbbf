package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.RecordingFileIO;
import dev.resurfacer.iceberg.testing.RestCatalogServer;
import dev.resurfacer.iceberg.testing.S3Server;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every operation on a table in Iceberg's REST catalog server, its warehouse in an S3 bucket. */
class RestS3MaintenanceTest {
  @RegisterExtension
  @org.junit.jupiter.api.Order(1)
  static final S3Server S3 = new S3Server();

  @RegisterExtension
  @org.junit.jupiter.api.Order(2)
  static final RestCatalogServer REST = new RestCatalogServer(S3, "rest");

  @TempDir
  Path scratch;

  static Catalog open(String ioImpl) {
    Map<String, String> props = new HashMap<>(REST.clientProperties());
    props.put("io-impl", ioImpl);
    return Catalogs.open(
        new CatalogConfig("lake", "rest", REST.uri(), REST.warehouse(), props, Set.of()));
  }

  @Test
  void everyOperationKeepsRowsAndLeavesExactlyTheReachableFiles() throws Exception {
    try (var catalog = (RESTCatalog) open(RecordingFileIO.class.getName())) {
      var scenario = new MaintenanceScenario(catalog, S3::objects, scratch);
      TableIdentifier id = TableIdentifier.of("e2e", "orders");
      Table table = scenario.messyTable("e2e", "orders");
      assertThat(table.location()).startsWith("s3://" + S3.bucket() + "/rest/");
      assertThat(table.io().getClass().getName()).isEqualTo(RecordingFileIO.class.getName());
      var rows = scenario.maintain(id, table);

      // a fresh client sees the same table through the server
      try (var other = (RESTCatalog) open("org.apache.iceberg.io.ResolvingFileIO")) {
        Table reloaded = other.loadTable(id);
        assertThat(dev.resurfacer.iceberg.testing.Rows.sortedStrings(reloaded)).isEqualTo(rows);
        assertThat(reloaded.currentSnapshot().snapshotId())
            .isEqualTo(table.currentSnapshot().snapshotId());
      }
    }
  }
}
