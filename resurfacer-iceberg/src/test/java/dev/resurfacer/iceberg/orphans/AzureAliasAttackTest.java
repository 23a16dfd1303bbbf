package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobHttpHeaders;
import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Alias attacks on expiry and remove-orphans in Azure storage (Azurite): the same blob named through
 * another scheme ({@code wasbs}, {@code abfs}), the Blob host instead of the Data Lake host, another
 * case, {@code ..} and escapes; a neighbour table registered under another spelling inside the
 * scope; a reference into another account; directory placeholders and ambiguous blob names; a
 * referenced blob missing from the listing. Nothing live is ever deleted.
 */
class AzureAliasAttackTest {
  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("aliases");

  @TempDir
  Path dir;

  Catalog catalog;
  int tables;

  @BeforeEach
  void open() {
    Map<String, String> props = new HashMap<>(AZURE.fileIoProperties());
    catalog = Catalogs.open(new CatalogConfig(
        "lake",
        "jdbc",
        SqliteCatalogs.uri(dir),
        AZURE.root() + "/" + dir.getFileName(),
        props,
        Set.of()));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void close() throws Exception {
    ((Closeable) catalog).close();
  }

  private Table table() {
    return dev.resurfacer.iceberg.testing.Fleet.smallFiles(catalog, "db", "t" + (tables++), 2);
  }

  private OrphanReport sweep(Table t) {
    return AliasAttackSweeps.sweep(catalog, t);
  }

  private static String stray(Table t) throws Exception {
    return AliasAttackSweeps.stray(t);
  }

  private static DataFile firstFile(Table t) {
    return AliasAttackSweeps.firstFile(t);
  }

  /** The blob {@code location} names, as the container lists it. */
  private static String blob(String location) {
    return AZURE.root() + dev.resurfacer.storage.StoredFile.parse(location).path();
  }

  /**
   * The current snapshot names a data file through another spelling of its blob, the old snapshot
   * through the one it was written with: expiring the old snapshot deletes nothing live, nor does
   * remove-orphans, while a real orphan beside them goes.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "wasbs://aliases@devstoreaccount1.blob.core.windows.net",
        "abfs://aliases@devstoreaccount1.dfs.core.windows.net",
        "WASB://ALIASES@DEVSTOREACCOUNT1.BLOB.core.windows.net",
        "dotdot",
        "escaped"
      })
  void anotherSpellingOfALiveBlobKeepsIt(String spelling) throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    String path = file.location().substring(AZURE.root().length());
    String respelled = switch (spelling) {
      case "dotdot" -> AZURE.root() + path.replace("/data/", "/data/x/../");
      case "escaped" -> AZURE.root() + path.replace("/data/", "/%64ata/");
      default -> spelling + path;
    };
    t.newRewrite()
        .rewriteFiles(
            Set.of(file),
            Set.of(DataFiles.builder(t.spec()).copy(file).withPath(respelled).build()))
        .commit();
    t.refresh();
    if (spelling.startsWith("wasbs")) {
      assertThat(Rows.sortedStrings(t))
          .hasSize(10); // ADLSFileIO reads the blob through the Blob host's spelling too
    }
    ExpireResult expired = SnapshotExpiry.execute(
        SnapshotExpiry.plan(t.name(), t, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
    assertThat(expired.committed()).isTrue();
    assertThat(AZURE.objects(t.location()))
        .as("expiry kept the blob named another way")
        .contains(file.location());

    String stray = stray(t);
    t.refresh();
    OrphanReport report = sweep(t);
    assertThat(report.removed().deleted().files()).as("%s", report).isEqualTo(1);
    Set<String> left = AZURE.objects(t.location());
    assertThat(left).contains(file.location()).doesNotContain(blob(stray));
  }

  @Test
  void aNeighbourTableUnderAnotherSpellingInsideTheScopeRefuses() throws Exception {
    Table t = table();
    String nestedLocation = "wasbs://aliases@devstoreaccount1.blob.core.windows.net"
        + t.location().substring(AZURE.root().length()) + "/nested";
    Table nested = catalog
        .buildTable(TableIdentifier.of("db", "nested"), Orders.SCHEMA)
        .withPartitionSpec(Orders.SPEC)
        .withLocation(nestedLocation)
        .create();
    var append = nested.newAppend();
    TableWrites.writeData(nested, Orders.rows(100, 5, 0)).forEach(append::appendFile);
    append.commit();
    stray(t);
    Set<String> before = AZURE.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("nested");
    assertThat(AZURE.objects(t.location())).isEqualTo(before);
  }

  @Test
  void aReferenceIntoAnotherAccountIsAPrefixMismatch() throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    String elsewhere = "abfss://aliases@otheraccount.dfs.core.windows.net"
        + file.location().substring(AZURE.root().length());
    t.newRewrite()
        .rewriteFiles(
            Set.of(file),
            Set.of(DataFiles.builder(t.spec()).copy(file).withPath(elsewhere).build()))
        .commit();
    t.refresh();
    stray(t);
    Set<String> before = AZURE.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("prefix mismatch");
    assertThat(AZURE.objects(t.location())).isEqualTo(before);
  }

  @Test
  void directoryPlaceholdersAreNotFilesAndAnAmbiguousBlobNameRefuses() throws Exception {
    Table t = table();
    String data = t.location().substring(AZURE.root().length() + 1) + "/data";
    // a hierarchical namespace shows its directories in the Blob view as empty blobs marked
    // hdi_isfolder
    AZURE
        .blobs()
        .getBlobClient(data + "/day=2026-01-01")
        .getBlockBlobClient()
        .uploadWithResponse(
            BinaryData.fromBytes(new byte[0]).toStream(),
            0,
            new BlobHttpHeaders(),
            Map.of("hdi_isfolder", "true"),
            null,
            null,
            null,
            null,
            null);
    AZURE.blobs().getBlobClient(data + "/empty/").upload(BinaryData.fromBytes(new byte[0]));
    String stray = stray(t);
    OrphanReport report = sweep(t);
    assertThat(report.removed().deleted().files()).as("%s", report).isEqualTo(1);
    assertThat(AZURE.objects(t.location()))
        .contains(
            AZURE.root() + "/" + data + "/day=2026-01-01", AZURE.root() + "/" + data + "/empty/")
        .doesNotContain(blob(stray));

    stray(t);
    AZURE.blobs().getBlobClient(data + "//twice.parquet").upload(BinaryData.fromBytes(new byte[] {1
    }));
    Set<String> before = AZURE.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("ambiguous");
    assertThat(AZURE.objects(t.location())).isEqualTo(before);
  }

  @Test
  void aReferencedBlobMissingFromTheListingIsAPartialListing() throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    stray(t);
    AZURE
        .blobs()
        .getBlobClient(file.location().substring(AZURE.root().length() + 1))
        .delete();
    Set<String> before = AZURE.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partial listing");
    assertThat(AZURE.objects(t.location())).isEqualTo(before);
  }
}
