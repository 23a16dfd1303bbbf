package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.storage.StorageFences;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks that made remove-orphans and expire delete live files: symlinks, {@code ..}, a
 * neighbour under another spelling, another catalog name or another catalog, a neighbour's older
 * files, the catalog's own database, and {@code file:/x} against {@code /x}. Every run uses the
 * harshest age guard (everything is old enough) and ends with the same assertions: every table
 * loads, every snapshot and ref of every table reads what it read before, and every file any of
 * them references exists. Where the run may go ahead, a planted real orphan shows it did.
 */
class AliasAttackTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;
  CatalogConfig config;
  final Map<String, Catalog> catalogs = new LinkedHashMap<>();
  final Map<String, Map<TableIdentifier, TableState>> before = new LinkedHashMap<>();

  @BeforeEach
  void open() throws IOException {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    config =
        CatalogConfig.of("test", "jdbc", SqliteCatalogs.uri(dir), SqliteCatalogs.warehouse(dir));
    catalogs.put("test", catalog);
  }

  @AfterEach
  void close() throws Exception {
    for (Catalog c : catalogs.values()) {
      ((AutoCloseable) c).close();
    }
  }

  @Test
  void aLinkedDirectoryInsideTheTableIsNeitherFollowedNorDeleted() throws Exception {
    Table a = filled(catalog, "a", null);
    Path data = dir(a).resolve("data");
    Path link = Files.createSymbolicLink(data.resolve("latest"), data.resolve("category=a"));
    Path orphan = plantOrphan(a);
    capture();

    OrphanReport r = sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null));

    assertThat(r.fenced().linksSkipped()).isEqualTo(1);
    assertThat(r.warnings()).anyMatch(w -> w.contains("symbolic link"));
    assertThat(link).isSymbolicLink();
    assertThat(orphan).doesNotExist();
    assertNothingLost();
  }

  @Test
  void aLinkIntoAnotherTableAndALoopAreNotFollowed() throws Exception {
    Table a = filled(catalog, "a", null);
    Table b = filled(catalog, "b", null);
    Files.createSymbolicLink(dir(a).resolve("data/b-data"), dir(b).resolve("data"));
    Files.createSymbolicLink(dir(a).resolve("data/category=a/loop"), dir(a));
    long realFiles;
    try (var s = Files.walk(dir(a))) {
      realFiles = s.filter(Files::isRegularFile).count(); // walk() follows no link either
    }
    capture();

    OrphanReport r = sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null));

    assertThat(r.census().listed().files()).isEqualTo(realFiles);
    assertThat(r.fenced().linksSkipped()).isEqualTo(2);
    assertThat(r.census().orphans().files()).isZero();
    assertNothingLost();
  }

  @Test
  void writeDataPathThroughALinkedDirectoryIsTheSameDirectory() throws Exception {
    Table a = create(catalog, "a", null);
    Path alias = Files.createSymbolicLink(
        dir.resolve("alias-data"), Files.createDirectories(dir(a).resolve("data")));
    a.updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, alias.toString())
        .commit();
    fill(a);
    Path orphan = plantOrphan(a);
    capture();

    OrphanReport r = sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null));

    assertThat(r.guard().scope()).hasSize(1);
    assertThat(orphan).doesNotExist();
    assertNothingLost();
  }

  @Test
  void writeDataPathWithDotSegmentsAndDoubleSlashesIsNotAPrefixMismatch() throws Exception {
    Table a = create(catalog, "a", null);
    Files.createDirectories(dir(a).resolve("x"));
    a.updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, dir(a) + "/x/..//./data//")
        .commit();
    fill(a);
    Path orphan = plantOrphan(a);
    capture();

    sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null));

    assertThat(orphan).doesNotExist();
    assertNothingLost();
  }

  @Test
  void aNeighbourSpelledWithDotDotOrThroughALinkedWarehouseIsSeen() throws Exception {
    Table a = filled(catalog, "a", null);
    Files.createDirectories(dir.resolve("warehouse/db/x"));
    filled(catalog, "b", dir.resolve("warehouse/db/x/../a/b").toString());
    Path linkedWarehouse =
        Files.createSymbolicLink(dir.resolve("wh-link"), dir.resolve("warehouse"));
    filled(catalog, "c", linkedWarehouse.resolve("db/a/c").toString());
    capture();

    assertThatThrownBy(() -> sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("overlaps");
    assertThatThrownBy(
            () -> sweep(catalog, a, null)) // the library's default: the catalog's own tables
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("overlaps");
    assertNothingLost();
  }

  @Test
  void aNeighbourThatOnceWroteHereAndMovedAwayIsSeenByItsFiles() throws Exception {
    Table a = filled(catalog, "a", null);
    Table b = create(catalog, "b", null);
    b.updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, dir(a) + "/data/b-files")
        .commit();
    fill(b);
    b.updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, dir(b) + "/data")
        .commit();
    fill(b);
    capture();

    assertThatThrownBy(() -> sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("references files in");
    Path orphan = plantOrphan(b);
    sweep(
        catalog,
        b,
        StorageFences.forCatalogs(
            List.of(config), null)); // b's own run is fine: a has nothing in b
    assertThat(orphan).doesNotExist();
    assertNothingLost();
  }

  @Test
  void aTableUnderAnotherCatalogNameInTheSameDatabaseIsSeen() throws Exception {
    Table a = filled(catalog, "a", null);
    JdbcCatalog other = new JdbcCatalog();
    other.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    other.initialize(
        "other",
        Map.of(
            CatalogProperties.URI,
            SqliteCatalogs.uri(dir),
            CatalogProperties.WAREHOUSE_LOCATION,
            SqliteCatalogs.warehouse(dir)));
    catalogs.put("other", other);
    other.createNamespace(Namespace.of("db"));
    filled(other, "b", dir(a).resolve("nested-b").toString());
    capture();

    assertThatThrownBy(() -> sweep(catalog, a, StorageFences.forCatalogs(List.of(config), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("db.b in catalog 'other'");
    // the library entry point a user calls with the configuration: same fence
    try (var r = IcebergResurfacer.connect(config)) {
      RunReport report = r.run(
          new MaintenancePlan(List.of(Maintain.table("db.a").removeOrphans(Duration.ZERO))),
          Mode.COMMIT);
      assertThat(report.exitCode()).isNotZero();
    }
    assertNothingLost();
  }

  @Test
  void aTableOfAnotherConfiguredCatalogIsSeen() throws Exception {
    Table a = filled(catalog, "a", null);
    Path second = dir.resolve("second");
    JdbcCatalog other = SqliteCatalogs.create("second", second);
    catalogs.put("second", other);
    other.createNamespace(Namespace.of("db"));
    filled(other, "b", dir(a).resolve("data/b").toString());
    CatalogConfig secondConfig = CatalogConfig.of(
        "second", "jdbc", SqliteCatalogs.uri(second), SqliteCatalogs.warehouse(second));
    capture();

    StorageFences both = StorageFences.forCatalogs(List.of(config, secondConfig), null);
    assertThatThrownBy(() -> sweep(catalog, a, both))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("db.b in catalog 'second'");
    try (var r = IcebergResurfacer.connect(config).fences(both)) {
      RunReport report = r.run(
          new MaintenancePlan(List.of(Maintain.table("db.a").removeOrphans(Duration.ZERO))),
          Mode.COMMIT);
      assertThat(report.exitCode()).isNotZero();
    }
    assertNothingLost();
  }

  @Test
  void aNeighbourThatChangesDuringTheRunIsReadAgainThoughTheCensusIsKept() throws Exception {
    Table a = filled(catalog, "a", null);
    Table b = filled(catalog, "b", null);
    StorageFences run = StorageFences.forCatalogs(
        List.of(config), null); // one run's fences, as maintain shares them
    sweep(catalog, a, run);
    sweep(catalog, a, run);
    // b was read once: the second sweep found its metadata file unchanged and took it from the memo
    assertThat(run.memo().counts()).containsExactly(1, 1);

    // then b commits a file inside a's directory (a slow writer, an add_files): to a it looks
    // orphaned
    DataFile written =
        TableWrites.writeData(a, OrphanRemovalTest.rows(900, 10, "a")).get(0);
    b.newAppend().appendFile(written).commit();
    Path shared = Path.of(written.location().replaceFirst("^file:", ""));
    assertThat(shared).startsWith(dir(a));
    capture();

    assertThatThrownBy(() -> sweep(catalog, a, run))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("db.b in catalog 'test' references files in");
    assertThat(run.memo().counts()).containsExactly(2, 1);
    assertThat(shared).exists();
    assertNothingLost();
  }

  @Test
  void theCatalogsOwnDatabaseIsNeverListedNorDeleted() throws Exception {
    Path root = dir.resolve("t");
    JdbcCatalog inside = SqliteCatalogs.create("inside", root);
    catalogs.put("inside", inside);
    inside.createNamespace(Namespace.of("db"));
    Table a = filled(inside, "a", root.toString()); // the table's location holds catalog.db
    CatalogConfig insideConfig =
        CatalogConfig.of("inside", "jdbc", SqliteCatalogs.uri(root), root.toString());
    Path orphan = plantOrphan(a);
    capture();

    OrphanReport r = sweep(inside, a, StorageFences.forCatalogs(List.of(insideConfig), null));

    assertThat(r.fenced().protectedSkipped()).isEqualTo(1);
    assertThat(root.resolve("catalog.db")).exists();
    assertThat(orphan).doesNotExist();
    assertThat(inside.listTables(Namespace.of("db"))).contains(TableIdentifier.of("db", "a"));
    assertNothingLost();
  }

  @Test
  void aCommitBetweenTheMetadataReadAndTheDeletesStopsTheRun() throws Exception {
    Table a = filled(catalog, "a", null);
    Path old = plantOrphan(a); // an old file a slow writer is about to commit
    DataFile late = DataFiles.builder(a.spec())
        .withPath(old.toString())
        .withFileSizeInBytes(Files.size(old))
        .withRecordCount(0)
        .withFormat("parquet")
        .withPartitionPath("category=a")
        .build();
    FaultyFileIO io = new FaultyFileIO(a.io());
    OrphanRemoval removal = OrphanRemovalSeams.io(
        OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, TableIdentifier.of("db", "a"), a).olderThan(Duration.ZERO),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1))),
        io);
    removal.onWarning(w -> {});
    // the hook runs when the version-hint lookup happens: after both metadata reads, before any
    // delete
    io.onExists(location -> {
      if (location.endsWith("version-hint.text")) {
        catalog
            .loadTable(TableIdentifier.of("db", "a"))
            .newFastAppend()
            .appendFile(late)
            .commit();
      }
    });

    assertThatThrownBy(removal::execute)
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("changed during the run");
    assertThat(old).exists();
  }

  @Test
  void expiryKeepsAFileCommittedAsFileColonAndLaterReferencedAsABarePath() throws Exception {
    Table a = create(catalog, "a", null);
    DataFile written =
        TableWrites.writeData(a, OrphanRemovalTest.rows(0, 10, "a")).get(0);
    String bare = written.location().replaceFirst("^file:/*", "/");
    DataFile asUri =
        DataFiles.builder(a.spec()).copy(written).withPath("file:" + bare).build();
    DataFile asPath = DataFiles.builder(a.spec()).copy(written).withPath(bare).build();
    a.newAppend().appendFile(asUri).commit();
    a.newRewrite().deleteFile(asUri).addFile(asPath).commit();
    capture();

    dev.resurfacer.iceberg.expire.SnapshotExpiry.execute(
        dev.resurfacer.iceberg.expire.SnapshotExpiry.plan(
            "db.a",
            a,
            new dev.resurfacer.iceberg.expire.ExpireOptions(Duration.ZERO, 1, List.of(), false)));

    assertThat(Path.of(bare)).exists();
    a.refresh();
    assertThat(a.snapshots()).hasSize(1);
    assertNothingLost();
  }

  @Test
  void theAgeGuardWarningComesBeforeAnythingIsDeleted() throws Exception {
    Table a = filled(catalog, "a", null);
    Path orphan = plantOrphan(a);
    List<Boolean> existedWhenWarned = new ArrayList<>();
    OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, TableIdentifier.of("db", "a"), a)
                .olderThan(Duration.ofMinutes(5)),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
        .onWarning(w -> existedWhenWarned.add(Files.exists(orphan)))
        .execute();
    assertThat(existedWhenWarned).containsExactly(true);
    assertThat(orphan).doesNotExist();
  }

  // --- helpers

  OrphanReport sweep(Catalog c, Table t, StorageFences fences) {
    TableIdentifier id =
        TableIdentifier.of("db", t.name().substring(t.name().lastIndexOf('.') + 1));
    OrphanRemoval removal = OrphanRemovalSeams.clock(
        OrphanRemoval.of(c, id, t).olderThan(Duration.ZERO),
        Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
    return (fences == null ? removal : removal.fences(fences)).execute();
  }

  Table create(Catalog c, String name, String location) {
    Catalog.TableBuilder builder = c.buildTable(
            TableIdentifier.of("db", name), OrphanRemovalTest.SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(OrphanRemovalTest.SCHEMA)
            .identity("category")
            .build())
        .withProperty(TableProperties.FORMAT_VERSION, "2");
    if (location != null) {
      builder = builder.withLocation(location);
    }
    return builder.create();
  }

  Table filled(Catalog c, String name, String location) {
    Table t = create(c, name, location);
    fill(t);
    return t;
  }

  /** Two appends and an overwrite, so older snapshots hold files the current one does not. */
  static void fill(Table t) {
    t.refresh();
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      files.addAll(
          TableWrites.writeData(t, OrphanRemovalTest.rows(i * 100, 10, i == 0 ? "a" : "b")));
      t.newAppend().appendFile(files.get(files.size() - 1)).commit();
    }
    DataFile replacement =
        TableWrites.writeData(t, OrphanRemovalTest.rows(500, 10, "a")).get(0);
    t.newOverwrite().deleteFile(files.get(0)).addFile(replacement).commit();
  }

  static Path dir(Table t) {
    return Path.of(t.location().replaceFirst("^file:", ""));
  }

  static Path plantOrphan(Table t) throws IOException {
    return OrphanRemovalTest.plant(
        dir(t).resolve("data/category=a/orphan-from-a-failed-job.parquet"),
        OrphanRemovalTest.TEN_DAYS_AGO);
  }

  /** Captures every table of every catalog this test made. */
  void capture() {
    before.clear();
    catalogs.forEach((name, c) -> {
      Map<TableIdentifier, TableState> states = new LinkedHashMap<>();
      for (TableIdentifier id : c.listTables(Namespace.of("db"))) {
        states.put(id, TableState.capture(c.loadTable(id)));
      }
      before.put(name, states);
    });
  }

  void assertNothingLost() {
    before.forEach((name, states) -> states.forEach(
        (id, state) -> Invariants.sameRowsAndNothingMissing(catalogs.get(name), id, state)));
    assertThat(before.values().stream().mapToInt(Map::size).sum()).isPositive();
  }
}
