package dev.resurfacer.delta.fences;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.VersionFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanRemovalSeams;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.storage.StorageFences;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables of one format inside, beside and referencing tables of the other, each written by its own
 * library (delta-spark, Iceberg Java): neither Delta's vacuum nor Iceberg's remove-orphans deletes a
 * file of the other table, whether a catalog names it or only its files on disk show it. Every run
 * that could have deleted one refuses, and afterwards every file of every version of every involved
 * table exists and each format's own reader returns what it returned before.
 */
class CrossFormatFenceTest {
  private static final Duration OLD = Duration.ofDays(10);
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final Clock LATER = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));

  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private Path deltaCopy(Path where) throws IOException {
    Path t = TestTables.copy(source, where);
    TestTables.ageData(t, OLD);
    return t;
  }

  private static Table icebergTable(JdbcCatalog catalog, String location) {
    catalog.createNamespace(Namespace.of("db"));
    Table t = location == null
        ? Orders.create(catalog, "db", "orders", 2)
        : catalog
            .buildTable(TableIdentifier.of("db", "orders"), Orders.SCHEMA)
            .withPartitionSpec(Orders.SPEC)
            .withLocation(location)
            .withProperty("format-version", "2")
            .create();
    for (int day = 0; day < 2; day++) {
      var append = t.newAppend();
      TableWrites.writeData(t, Orders.rows(day * 10L, 10, day)).forEach(append::appendFile);
      append.commit();
    }
    t.refresh();
    return t;
  }

  /** What every involved table holds, by each format's own reader, and the files each needs. */
  private record State(
      List<String> deltaRows,
      Set<Path> deltaFiles,
      List<String> icebergRows,
      Set<Path> icebergFiles) {
    static State of(Path delta, JdbcCatalog catalog) {
      Table iceberg = catalog.loadTable(TableIdentifier.of("db", "orders"));
      return new State(
          DeltaSpark.rows(delta),
          CrossFormatFenceTest.everyVersionsFiles(delta),
          Content.of(iceberg),
          CrossFormatFenceTest.icebergFiles(iceberg));
    }
  }

  private static Set<Path> everyVersionsFiles(Path root) {
    Set<Path> out = new TreeSet<>();
    try (DeltaTable table = DeltaTables.open("t", root.toString(), root.getParent())) {
      for (long v = 0; v <= table.latest().getVersion(); v++) {
        out.addAll(VersionFiles.of(table, v));
      }
    }
    return out;
  }

  /** The files the current version reads: all a zero-retention vacuum keeps. */
  private static Set<Path> currentFiles(Path root) {
    try (DeltaTable table = DeltaTables.open("t", root.toString(), root.getParent())) {
      return VersionFiles.of(table, table.latest().getVersion());
    }
  }

  /** Every metadata file, manifest list, manifest and data file of every snapshot of the table. */
  private static Set<Path> icebergFiles(Table table) {
    Set<Path> out = new TreeSet<>();
    table.snapshots().forEach(s -> {
      out.add(Path.of(s.manifestListLocation()));
      s.allManifests(table.io()).forEach(m -> out.add(Path.of(m.path())));
      s.addedDataFiles(table.io()).forEach(f -> out.add(Path.of(f.location())));
    });
    out.add(Path.of(((org.apache.iceberg.HasTableOperations) table)
        .operations()
        .current()
        .metadataFileLocation()));
    return out;
  }

  private static void assertUnchanged(State before, Path delta, JdbcCatalog catalog) {
    assertThat(before.deltaFiles()).allMatch(Files::exists);
    assertThat(before.icebergFiles()).allMatch(Files::exists);
    State after = State.of(delta, catalog);
    assertThat(after.deltaRows()).isEqualTo(before.deltaRows());
    assertThat(after.icebergRows()).isEqualTo(before.icebergRows());
  }

  private static void age(Path root) throws IOException {
    FileTime t = FileTime.from(Instant.now().minus(OLD));
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, t);
      }
    }
  }

  private static Map<Path, Long> tree(Path root) throws IOException {
    Map<Path, Long> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(p, Files.size(p));
      }
    }
    return out;
  }

  private static CatalogConfig icebergConfig(Path catalogDir) {
    return CatalogConfig.of(
        "lake", "jdbc", SqliteCatalogs.uri(catalogDir), SqliteCatalogs.warehouse(catalogDir));
  }

  private static CatalogConfig deltaConfig(Map<String, String> tables) {
    return new CatalogConfig(
        "deltas", CatalogConfig.DELTA, null, null, Map.of(), Set.of(), tables, List.of());
  }

  private static void vacuum(Path delta, StorageFences fences) {
    try (DeltaTable table =
        DeltaTables.open("raw.events", delta.toString(), delta.getParent()).withFences(fences)) {
      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
    }
  }

  private static void removeOrphans(JdbcCatalog catalog, StorageFences fences) {
    Table t = catalog.loadTable(TableIdentifier.of("db", "orders"));
    OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, TableIdentifier.of("db", "orders"), t)
                .olderThan(Duration.ZERO),
            LATER)
        .fences(fences)
        .execute();
  }

  @Test
  void
      anIcebergTableWithItsSqliteCatalogInsideADeltaTableStopsVacuumWithOrWithoutItsCatalogConfigured()
          throws Exception {
    Path delta = deltaCopy(dir.resolve("events"));
    Path stray = TestTables.write(delta.resolve("part=a b/stray.parquet"), OLD);
    Path catalogDir = delta.resolve(
        "part=a b/ice"); // its catalog.db and warehouse/ beside each other, as a user sets one up
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catalogDir);
    icebergTable(catalog, null);
    age(catalogDir);
    State before = State.of(delta, catalog);
    Map<Path, Long> tree = tree(delta);

    for (StorageFences fences : List.of(
        StorageFences.none(),
        StorageFences.forCatalogs(List.of(icebergConfig(catalogDir)), null))) {
      assertThatThrownBy(() -> vacuum(delta, fences))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageMatching(
              "(?s).*(another table lives inside this table's directory|table db.orders in catalog 'lake' lives at).*");
      assertThat(tree(delta)).as("nothing deleted").isEqualTo(tree);
    }
    assertThat(stray).exists();
    assertUnchanged(before, delta, catalog);
    catalog.close();
  }

  @Test
  void aDeltaTableInsideAnIcebergTableStopsRemoveOrphansWithOrWithoutADeltaCatalogNamingIt()
      throws Exception {
    Path catalogDir = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catalogDir);
    Table orders = icebergTable(catalog, null);
    Path icebergRoot = Path.of(orders.location());
    Path delta = deltaCopy(icebergRoot.resolve("data/nested_events"));
    Path stray = TestTables.write(icebergRoot.resolve("data/stray.parquet"), OLD);
    age(icebergRoot);
    State before = State.of(delta, catalog);
    Map<Path, Long> tree = tree(icebergRoot);

    List<StorageFences> runs = List.of(
        StorageFences.forCatalogs(List.of(icebergConfig(catalogDir)), null),
        StorageFences.forCatalogs(
            List.of(icebergConfig(catalogDir), deltaConfig(Map.of("raw.nested", delta.toString()))),
            null));
    for (StorageFences fences : runs) {
      assertThatThrownBy(() -> removeOrphans(catalog, fences))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageMatching(
              "(?s).*(a Delta table lives at .*nested_events|raw.nested in catalog 'deltas' lives at).*");
      assertThat(tree(icebergRoot)).as("nothing deleted").isEqualTo(tree);
    }
    assertThat(stray).exists();
    assertUnchanged(before, delta, catalog);
    catalog.close();
  }

  @Test
  void anIcebergTableSharingADeltaTablesDirectoryStopsBothDeletePaths() throws Exception {
    Path delta = deltaCopy(dir.resolve("events"));
    Path catalogDir = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catalogDir);
    icebergTable(
        catalog,
        delta.toString()); // metadata/ and data/ beside _delta_log, as a UniForm table keeps them
    age(delta);
    State before = State.of(delta, catalog);
    Map<Path, Long> tree = tree(delta);

    assertThatThrownBy(() -> vacuum(delta, StorageFences.none()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("an Iceberg table shares this table's directory");
    assertThatThrownBy(() -> removeOrphans(
            catalog, StorageFences.forCatalogs(List.of(icebergConfig(catalogDir)), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("a Delta table lives at");
    assertThat(tree(delta)).as("nothing deleted").isEqualTo(tree);
    assertUnchanged(before, delta, catalog);
    catalog.close();
  }

  @Test
  void aShallowCloneReadingTheSourcesFilesStopsTheSourcesVacuumOnceBothAreConfigured()
      throws Exception {
    Path src = deltaCopy(dir.resolve("events"));
    Path clone = dir.resolve("events_clone");
    DeltaSpark.sql(
        "CREATE TABLE " + DeltaSpark.table(clone) + " SHALLOW CLONE " + DeltaSpark.table(src));
    // the source moves on: its files are rewritten, so the ones the clone reads are tombstones
    // there now
    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(src));
    TestTables.ageData(src, OLD);
    List<String> cloneRows = DeltaSpark.rows(clone);
    List<String> srcRows = DeltaSpark.rows(src);
    Set<Path> cloneFiles = everyVersionsFiles(clone);
    assertThat(cloneFiles)
        .as("the clone reads the source's files")
        .anyMatch(p -> p.startsWith(src));
    Map<Path, Long> tree = tree(src);

    StorageFences both = StorageFences.forCatalogs(
        List.of(deltaConfig(
            Map.of("raw.events", src.toString(), "raw.events_clone", clone.toString()))),
        null);
    assertThatThrownBy(() -> vacuum(src, both))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("raw.events_clone in catalog 'deltas' references files in");
    assertThat(tree(src)).as("nothing deleted").isEqualTo(tree);
    assertThat(cloneFiles).allMatch(Files::exists);
    assertThat(DeltaSpark.rows(clone)).isEqualTo(cloneRows);
    assertThat(DeltaSpark.rows(src)).isEqualTo(srcRows);

    // the clone's own vacuum is fine: the source references nothing in the clone's directory
    vacuum(clone, both);
    assertThat(DeltaSpark.rows(clone)).isEqualTo(cloneRows);
  }

  @Test
  void anIcebergTableThatImportedADeltaTablesFileStopsThatTablesVacuum() throws Exception {
    Path delta = deltaCopy(dir.resolve("events"));
    Set<Path> current = currentFiles(delta);
    Path removed = everyVersionsFiles(delta).stream()
        .filter(p -> !current.contains(p) && p.toString().endsWith(".parquet"))
        .findFirst()
        .orElseThrow(); // only an older version reads it: a zero-retention vacuum would delete it
    Path catalogDir = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catalogDir);
    catalog.createNamespace(Namespace.of("db"));
    Table imported = catalog.createTable(TableIdentifier.of("db", "imported"), Orders.SCHEMA);
    // what add_files or a snapshot/migrate procedure commits: the Delta table's file, in place
    imported
        .newAppend()
        .appendFile(org.apache.iceberg.DataFiles.builder(imported.spec())
            .withPath(removed.toString())
            .withFileSizeInBytes(Files.size(removed))
            .withRecordCount(1)
            .withFormat(org.apache.iceberg.FileFormat.PARQUET)
            .build())
        .commit();
    List<String> rows = DeltaSpark.rows(delta);
    Map<Path, Long> tree = tree(delta);

    assertThatThrownBy(() ->
            vacuum(delta, StorageFences.forCatalogs(List.of(icebergConfig(catalogDir)), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("db.imported in catalog 'lake' references files in");
    assertThat(tree(delta)).as("nothing deleted").isEqualTo(tree);
    assertThat(DeltaSpark.rows(delta)).isEqualTo(rows);

    // control: with no catalog the same vacuum deletes the file the Iceberg table reads
    vacuum(delta, StorageFences.none());
    assertThat(removed).doesNotExist();
    catalog.close();
  }

  @Test
  void aSqliteCatalogDatabaseInsideADeltaTableIsNeverACandidate() throws Exception {
    Path delta = deltaCopy(dir.resolve("events"));
    Path stray = TestTables.write(delta.resolve("stray.parquet"), OLD);
    JdbcCatalog catalog = SqliteCatalogs.create(
        "lake", delta.resolve("part=c/cat")); // a catalog no table was created in
    catalog.createNamespace(Namespace.of("db"));
    catalog.close();
    Path db = delta.resolve("part=c/cat/catalog.db");
    age(delta.resolve("part=c/cat"));
    List<String> rows = DeltaSpark.rows(delta);

    vacuum(delta, StorageFences.none());

    assertThat(stray).doesNotExist();
    assertThat(db).exists();
    assertThat(DeltaSpark.rows(delta)).isEqualTo(rows);
    assertThat(currentFiles(delta)).allMatch(Files::exists);
  }

  /** Control: the fence is what kept the files above; a vacuum with nothing around deletes an old unreferenced file. */
  @Test
  void withNothingAroundVacuumStillDeletesOldUnreferencedFiles() throws Exception {
    Path delta = deltaCopy(dir.resolve("events"));
    List<Path> strays = new ArrayList<>();
    strays.add(TestTables.write(delta.resolve("stray.parquet"), OLD));
    strays.add(TestTables.write(delta.resolve("part=c/stray-2.parquet"), OLD));
    vacuum(
        delta,
        StorageFences.forCatalogs(
            List.of(deltaConfig(Map.of("raw.events", delta.toString()))), null));
    assertThat(strays).noneMatch(Files::exists);
    assertThat(currentFiles(delta)).allMatch(Files::exists);
  }
}
