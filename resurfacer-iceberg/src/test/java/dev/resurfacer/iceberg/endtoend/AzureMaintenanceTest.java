package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.orphans.OrphanRemovalSeams;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import dev.resurfacer.iceberg.testing.RecordingFileIO;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operation on a table whose warehouse is in Azure storage ({@code abfss://}, through Iceberg's
 * ADLSFileIO) on Azurite: compaction stages its inputs through FileIO and verifies content,
 * remove-orphans lists the container through the Blob API, and at the end the container holds
 * exactly the reachable files.
 */
class AzureMaintenanceTest {
  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("warehouse");

  @TempDir
  Path dir;

  static Catalog open(Path dir, String warehouse, String ioImpl) {
    Map<String, String> props = new HashMap<>(AZURE.fileIoProperties());
    props.put("io-impl", ioImpl);
    return Catalogs.open(
        new CatalogConfig("lake", "jdbc", SqliteCatalogs.uri(dir), warehouse, props, Set.of()));
  }

  /** The Azure example of docs/catalogs.md, parsed as written, against Azurite's account, key and endpoint. */
  @Test
  void theDocumentedExampleWorks() throws Exception {
    String yaml = DocumentedCatalogsTest.example("azure")
        .replace("https://myaccount.dfs.core.windows.net", AZURE.endpoint())
        .replace("myaccount", AzuriteServer.ACCOUNT)
        .replace("resurfacer-data/", dir.resolve("resurfacer-data") + "/");
    CatalogConfig config =
        DocumentedCatalogsTest.parse(yaml, Map.of("AZURE_STORAGE_KEY", AzuriteServer.KEY));
    assertThat(config.toString()).doesNotContain(AzuriteServer.KEY);
    Catalog catalog = Catalogs.open(config);
    try (Closeable c = (Closeable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("docs"));
      Table t = DocumentedCatalogsTest.roundTrip(catalog, "azure");
      assertThat(t.location()).isEqualTo(AZURE.root() + "/lake/docs/azure");
      assertThat(AZURE.objects(t.location())).isNotEmpty();
    }
  }

  /** A SAS token instead of the account key (Azurite checks SAS signatures): tables are written, listed and swept with it alone. */
  @Test
  void aSasTokenAloneReadsWritesListsAndDeletes() throws Exception {
    var sas = new com.azure.storage.common.sas.AccountSasSignatureValues(
        java.time.OffsetDateTime.now().plusHours(1),
        com.azure.storage.common.sas.AccountSasPermission.parse("rwdlac"),
        com.azure.storage.common.sas.AccountSasService.parse("b"),
        com.azure.storage.common.sas.AccountSasResourceType.parse("sco"));
    String token = AZURE.service().generateAccountSas(sas);
    Map<String, String> props = new HashMap<>();
    props.put("adls.connection-string." + AzuriteServer.DFS_HOST, AZURE.endpoint());
    props.put("adls.sas-token." + AzuriteServer.DFS_HOST, token);
    Catalog catalog = Catalogs.open(new CatalogConfig(
        "lake", "jdbc", SqliteCatalogs.uri(dir), AZURE.root() + "/sas", props, Set.of()));
    try (Closeable c = (Closeable) catalog) {
      Table t = DocumentedCatalogsTest.roundTrip(catalog, "sas");
      String stray = t.locationProvider().newDataLocation("stray.parquet");
      try (var out = t.io().newOutputFile(stray).create()) {
        out.write(new byte[] {1});
      }
      var report = OrphanRemovalSeams.clock(
              dev.resurfacer.iceberg.orphans.OrphanRemoval.of(
                      catalog, TableIdentifier.of("docs", "sas"), t)
                  .olderThan(java.time.Duration.ofHours(1)),
              java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(2)))
          .execute();
      assertThat(report.removed().deleted().files()).as("%s", report).isEqualTo(1);
      assertThat(AZURE.objects(t.location())).isEqualTo(MaintenanceScenario.reachable(t));
    }
    // the token is what lets it in: a forged signature is refused by the server
    props.put(
        "adls.sas-token." + AzuriteServer.DFS_HOST, token.replaceFirst("sig=[^&]+", "sig=forged"));
    Catalog forged = Catalogs.open(new CatalogConfig(
        "lake",
        "jdbc",
        SqliteCatalogs.uri(dir.resolve("forged")),
        AZURE.root() + "/forged",
        props,
        Set.of()));
    try (Closeable c = (Closeable) forged) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> DocumentedCatalogsTest.roundTrip(forged, "forged"));
    }
  }

  @Test
  void everyOperationKeepsRowsAndLeavesExactlyTheReachableFiles() throws Exception {
    Path scratch = Files.createDirectories(dir.resolve("scratch"));
    Catalog catalog = open(dir, AZURE.root() + "/wh", RecordingFileIO.class.getName());
    try (Closeable c = (Closeable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("e2e"));
      var scenario = new MaintenanceScenario(catalog, AZURE::objects, scratch);
      Table table = scenario.messyTable("e2e", "orders");
      assertThat(table.location()).isEqualTo(AZURE.root() + "/wh/e2e/orders");
      var rows = scenario.maintain(TableIdentifier.of("e2e", "orders"), table);

      // a client on the default FileIO, with the wasbs:// spelling of the same container, reads the
      // same rows
      Catalog other = open(
          dir, AZURE.root() + "/wh", dev.resurfacer.iceberg.storage.StorageFileIO.class.getName());
      try (Closeable o = (Closeable) other) {
        Table reloaded = other.loadTable(TableIdentifier.of("e2e", "orders"));
        assertThat(dev.resurfacer.iceberg.testing.Rows.sortedStrings(reloaded)).isEqualTo(rows);
      }
    }
  }
}
