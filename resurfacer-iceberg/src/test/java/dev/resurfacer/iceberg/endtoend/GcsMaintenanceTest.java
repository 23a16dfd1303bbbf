package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.storage.StorageFileIO;
import dev.resurfacer.iceberg.testing.GcsEmulator;
import dev.resurfacer.iceberg.testing.RecordingFileIO;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.gcp.gcs.GCSFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operation on a table whose warehouse is on Google Cloud Storage ({@code gs://}, through
 * Iceberg's GCSFileIO) on firebase-tools' Cloud Storage emulator: compaction stages its inputs
 * through FileIO and verifies content, remove-orphans lists the bucket by prefix, and at the end the
 * bucket holds exactly the reachable files.
 */
class GcsMaintenanceTest {
  @RegisterExtension
  static final GcsEmulator GCS = new GcsEmulator("warehouse");

  @TempDir
  Path dir;

  static Catalog open(Path dir, String warehouse, String ioImpl) {
    Map<String, String> props = new HashMap<>(GCS.fileIoProperties());
    props.put("io-impl", ioImpl);
    return Catalogs.open(
        new CatalogConfig("lake", "jdbc", SqliteCatalogs.uri(dir), warehouse, props, Set.of()));
  }

  /** The example of docs/catalogs.md, parsed as written, pointed at the emulator as its comments say; describe reads it. */
  @Test
  void theDocumentedExampleWorksAndDescribes() throws Exception {
    String yaml = DocumentedCatalogsTest.example("gcs")
        .replace("gs://my-bucket/", GCS.root() + "/")
        .replace("# gcs.service.host: http://127.0.0.1:9199", "gcs.service.host: " + GCS.endpoint())
        .replace("# gcs.no-auth: true", "gcs.no-auth: true")
        .replace("resurfacer-data/", dir.resolve("resurfacer-data") + "/");
    assertThat(yaml)
        .contains("gcs.service.host: " + GCS.endpoint())
        .contains("\n      gcs.no-auth: true".translateEscapes());
    CatalogConfig config = DocumentedCatalogsTest.parse(yaml, Map.of());
    Catalog catalog = Catalogs.open(config);
    try (Closeable c = (Closeable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("docs"));
      Table t = DocumentedCatalogsTest.roundTrip(catalog, "gcs");
      assertThat(t.location()).isEqualTo(GCS.root() + "/lake/docs/gcs");
      var health = dev.resurfacer.iceberg.health.HealthInspector.inspect("docs.gcs", t);
      assertThat(health.location()).isEqualTo(t.location());
      assertThat(health.data().dataFiles()).isEqualTo(1);
      assertThat(health.data().dataRecords()).isEqualTo(25);
      assertThat(health.history().snapshots()).isEqualTo(1);
      assertThat(GCS.objects(t.location()))
          .hasSize(health.metadata().metadataFilesOnDisk()
              + 1
              + (int) health.manifests().manifests()
              + 1)
          .contains(t.currentSnapshot().addedDataFiles(t.io()).iterator().next().location());
    }
  }

  @Test
  void everyOperationKeepsRowsAndLeavesExactlyTheReachableFiles() throws Exception {
    Path scratch = Files.createDirectories(dir.resolve("scratch"));
    Catalog catalog = open(dir, GCS.root() + "/wh", RecordingFileIO.class.getName());
    try (Closeable c = (Closeable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("e2e"));
      var scenario = new MaintenanceScenario(catalog, GCS::objects, scratch);
      Table table = scenario.messyTable("e2e", "orders");
      assertThat(table.location()).isEqualTo(GCS.root() + "/wh/e2e/orders");
      var rows = scenario.maintain(TableIdentifier.of("e2e", "orders"), table);

      // a client on the default FileIO reads the same rows
      Catalog other = open(dir, GCS.root() + "/wh", StorageFileIO.class.getName());
      try (Closeable o = (Closeable) other) {
        Table reloaded = other.loadTable(TableIdentifier.of("e2e", "orders"));
        assertThat(Rows.sortedStrings(reloaded)).isEqualTo(rows);
      }
    }
  }

  /** The emulator has no batch endpoint: our FileIO deletes objects one by one and every one is gone, the others stay. */
  @Test
  void aBulkDeleteRemovesExactlyTheNamedObjects() throws Exception {
    List<String> doomed = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      GCS.put("bulk/doomed-" + i + (i % 7 == 0 ? "%20x" : "") + ".parquet", new byte[] {(byte) i});
      doomed.add(GCS.root() + "/bulk/doomed-" + i + (i % 7 == 0 ? "%20x" : "") + ".parquet");
    }
    GCS.put("bulk/kept.parquet", new byte[] {1});
    try (StorageFileIO io = new StorageFileIO()) {
      io.initialize(GCS.fileIoProperties());
      io.deleteFiles(doomed);
      assertThat(GCS.objects(GCS.root() + "/bulk"))
          .containsExactly(GCS.root() + "/bulk/kept.parquet");
    }
    // GCSFileIO's own bulk delete goes through the batch endpoint, which this server does not serve
    GCS.put("bulk/batch.parquet", new byte[] {1});
    try (GCSFileIO io = new GCSFileIO()) {
      io.initialize(GCS.fileIoProperties());
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> io.deleteFiles(List.of(GCS.root() + "/bulk/batch.parquet")));
    }
    assertThat(GCS.objects(GCS.root() + "/bulk")).contains(GCS.root() + "/bulk/batch.parquet");
  }

  /** GCSFileIO's one-byte read at the end of an object returns a byte (iceberg-gcp 1.11); through our FileIO it ends. */
  @Test
  void aStreamOfOurFileIoEndsAtTheEndOfTheObject() throws Exception {
    try (StorageFileIO io = new StorageFileIO()) {
      io.initialize(GCS.fileIoProperties());
      String location = GCS.root() + "/ending/x.bin";
      try (var out = io.newOutputFile(location).create()) {
        out.write(new byte[] {7, 8, 9});
      }
      for (var file : List.of(io.newInputFile(location), io.newInputFile(location, 3))) {
        assertThat(file.getLength()).isEqualTo(3);
        try (var in = file.newStream()) {
          assertThat(in.read()).isEqualTo(7);
          assertThat(in.readNBytes(5)).containsExactly(8, 9);
          assertThat(in.read()).isEqualTo(-1);
          in.seek(1);
          assertThat(in.read()).isEqualTo(8);
        }
      }
    }
  }
}
