package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.testing.GcsEmulator;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
 * Alias attacks on expiry and remove-orphans on Google Cloud Storage (firebase-tools' emulator): the
 * same object named with the bucket or scheme in upper case, through {@code ..} and escapes; a
 * neighbour table registered under another spelling inside the scope; a reference into another
 * bucket; directory placeholders and ambiguous object names; a referenced object missing from the
 * listing. Nothing live is ever deleted.
 */
class GcsAliasAttackTest {
  @RegisterExtension
  static final GcsEmulator GCS = new GcsEmulator("aliases");

  @TempDir
  Path dir;

  Catalog catalog;
  int tables;

  @BeforeEach
  void open() {
    catalog = Catalogs.open(new CatalogConfig(
        "lake",
        "jdbc",
        SqliteCatalogs.uri(dir),
        GCS.root() + "/" + dir.getFileName(),
        GCS.fileIoProperties(),
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

  /** The object {@code location} names, as the bucket lists it. */
  private static String object(String location) {
    return GCS.root() + dev.resurfacer.storage.StoredFile.parse(location).path();
  }

  private static String name(String location) {
    return location.substring(GCS.root().length() + 1);
  }

  /**
   * The current snapshot names a data file through another spelling of its object, the old snapshot
   * through the one it was written with: expiring the old snapshot deletes nothing live, nor does
   * remove-orphans, while a real orphan beside them goes.
   */
  @ParameterizedTest
  @ValueSource(strings = {"gs://ALIASES", "GS://aliases", "dotdot", "escaped"})
  void anotherSpellingOfALiveObjectKeepsIt(String spelling) throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    String path = file.location().substring(GCS.root().length());
    String respelled = switch (spelling) {
      case "dotdot" -> GCS.root() + path.replace("/data/", "/data/x/../");
      case "escaped" -> GCS.root() + path.replace("/data/", "/%64ata/");
      default -> spelling + path;
    };
    t.newRewrite()
        .rewriteFiles(
            Set.of(file),
            Set.of(DataFiles.builder(t.spec()).copy(file).withPath(respelled).build()))
        .commit();
    t.refresh();
    ExpireResult expired = SnapshotExpiry.execute(
        SnapshotExpiry.plan(t.name(), t, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
    assertThat(expired.committed()).isTrue();
    assertThat(GCS.objects(t.location()))
        .as("expiry kept the object named another way")
        .contains(file.location());

    String stray = stray(t);
    t.refresh();
    OrphanReport report = sweep(t);
    assertThat(report.removed().deleted().files()).as("%s", report).isEqualTo(1);
    assertThat(GCS.objects(t.location())).contains(file.location()).doesNotContain(object(stray));
  }

  @Test
  void aNeighbourTableUnderAnotherSpellingInsideTheScopeRefuses() throws Exception {
    Table t = table();
    String nestedLocation =
        "gs://ALIASES" + t.location().substring(GCS.root().length()) + "/nested";
    Table nested = catalog
        .buildTable(TableIdentifier.of("db", "nested"), Orders.SCHEMA)
        .withPartitionSpec(Orders.SPEC)
        .withLocation(nestedLocation)
        .create();
    var append = nested.newAppend();
    TableWrites.writeData(nested, Orders.rows(100, 5, 0)).forEach(append::appendFile);
    append.commit();
    stray(t);
    Set<String> before = GCS.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("nested");
    assertThat(GCS.objects(t.location())).isEqualTo(before);
  }

  @Test
  void aReferenceIntoAnotherBucketIsAPrefixMismatch() throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    String elsewhere =
        "gs://other-bucket" + file.location().substring(GCS.root().length());
    t.newRewrite()
        .rewriteFiles(
            Set.of(file),
            Set.of(DataFiles.builder(t.spec()).copy(file).withPath(elsewhere).build()))
        .commit();
    t.refresh();
    stray(t);
    Set<String> before = GCS.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("prefix mismatch");
    assertThat(GCS.objects(t.location())).isEqualTo(before);
  }

  @Test
  void directoryPlaceholdersAreNotFilesAndAnAmbiguousObjectNameRefuses() throws Exception {
    Table t = table();
    String data = name(t.location()) + "/data";
    // the Cloud console's "create folder" writes an empty object named with a trailing slash
    GCS.put(data + "/empty/", new byte[0]);
    String stray = stray(t);
    OrphanReport report = sweep(t);
    assertThat(report.removed().deleted().files()).as("%s", report).isEqualTo(1);
    assertThat(GCS.objects(t.location()))
        .contains(GCS.root() + "/" + data + "/empty/")
        .doesNotContain(object(stray));

    stray(t);
    GCS.put(data + "//twice.parquet", new byte[] {1});
    Set<String> before = GCS.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("ambiguous");
    assertThat(GCS.objects(t.location())).isEqualTo(before);
  }

  @Test
  void aReferencedObjectMissingFromTheListingIsAPartialListing() throws Exception {
    Table t = table();
    DataFile file = firstFile(t);
    stray(t);
    try (var s = GCS.storage()) {
      assertThat(s.delete(GCS.bucket(), name(file.location()))).isTrue();
    }
    Set<String> before = GCS.objects(t.location());
    assertThatThrownBy(() -> sweep(t))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partial listing");
    assertThat(GCS.objects(t.location())).isEqualTo(before);
  }
}
