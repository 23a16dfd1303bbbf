package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each fence gets a run that tries to make remove-orphans delete a live file; the assertions are
 * that nothing live was deleted and that the run says which fence stopped it.
 */
class OrphanRemovalTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()));
  static final long TEN_DAYS_AGO =
      System.currentTimeMillis() - Duration.ofDays(10).toMillis();

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void open() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void close() throws IOException {
    catalog.close();
  }

  @Test
  void roundTripLeavesExactlyTheReachableFilesAndTheSameRows() throws Exception {
    Table table = create("t");
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      files.addAll(TableWrites.writeData(table, rows(i * 100, 20, i % 2 == 0 ? "a" : "b")));
      table.newAppend().appendFile(files.get(files.size() - 1)).commit();
    }
    long tagged = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("before-cleanup", tagged).commit();
    List<String> tagRows = Rows.sortedStrings(table, tagged);
    DeleteFile pos = TableWrites.writePositionDeletes(
        table,
        table.spec(),
        files.get(0).partition(),
        List.of(
            new Position(files.get(0).location(), 1), new Position(files.get(0).location(), 2)));
    table.newRowDelta().addDeletes(pos).commit();
    // a rewrite supersedes the second file; the tag still needs it
    DataFile rewritten = TableWrites.writeData(table, rows(100, 20, "b")).get(0);
    table.newRewrite().deleteFile(files.get(1)).addFile(rewritten).commit();
    addStatistics(table);
    PartitionStatisticsFile partitionStats = PartitionStatsHandler.computeAndWriteStatsFile(table);
    table.updatePartitionStatistics().setPartitionStatistics(partitionStats).commit();
    table.refresh();
    List<String> currentRows = Rows.sortedStrings(table);
    Set<String> live = filesUnder(tableDir(table));

    Path tableDir = tableDir(table);
    List<Path> planted = List.of(
        plant(tableDir.resolve("data/category=a/orphan-1.parquet"), TEN_DAYS_AGO),
        plant(tableDir.resolve("data/failed-job/part-0.parquet"), TEN_DAYS_AGO),
        plant(tableDir.resolve("metadata/00099-abandoned.metadata.json"), TEN_DAYS_AGO),
        plant(tableDir.resolve("metadata/snap-1-1-abandoned.avro"), TEN_DAYS_AGO));

    OrphanReport preview = OrphanRemoval.of(catalog, id("t"), table).plan();
    assertThat(preview.deleted()).isFalse();
    assertThat(preview.census().orphans().files()).isEqualTo(planted.size());
    assertThat(preview.orphans())
        .extracting(OrphanReport.OrphanFile::location)
        .allSatisfy(l -> assertThat(planted.stream()
                .map(p -> dev.resurfacer.storage.StoredFile.parse(p.toString()).key()))
            .contains(dev.resurfacer.storage.StoredFile.parse(l).key()));
    assertThat(preview.census().keptReachable().files()).isEqualTo(live.size());
    assertThat(preview.references().referenced())
        .containsEntry("statistics files", 1L)
        .containsEntry("partition statistics files", 1L)
        .containsEntry("delete files", 1L);
    assertThat(planted).allSatisfy(p -> assertThat(p).exists());

    OrphanReport done = OrphanRemoval.of(catalog, id("t"), table).execute();
    assertThat(done.removed().deleted().files()).isEqualTo(planted.size());
    assertThat(done.removed().deleted().bytes())
        .isEqualTo(preview.census().orphans().bytes());
    assertThat(done.removed().failedDeletes()).isZero();
    assertThat(filesUnder(tableDir)).isEqualTo(live);
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(currentRows);
    assertThat(Rows.sortedStrings(table, table.refs().get("before-cleanup").snapshotId()))
        .isEqualTo(tagRows);

    OrphanReport again = OrphanRemoval.of(catalog, id("t"), table).execute();
    assertThat(again.census().orphans().files()).isZero();
    assertThat(again.removed().deleted().files()).isZero();
  }

  @Test
  void deletionVectorPuffinFilesOfAV3TableAreReferenced() throws Exception {
    Table table = catalog
        .buildTable(id("v3"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "3")
        .create();
    DataFile file = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(file).commit();
    List<DeleteFile> dvs = TableWrites.writeDeletionVectors(table, Map.of(file, List.of(0L, 1L)));
    var delta = table.newRowDelta();
    dvs.forEach(delta::addDeletes);
    delta.commit();
    Set<String> live = filesUnder(tableDir(table));
    try (Stream<Path> all = Files.walk(tableDir(table))) {
      all.forEach(p -> p.toFile().setLastModified(TEN_DAYS_AGO));
    }
    Path orphan = plant(tableDir(table).resolve("data/orphan.puffin"), TEN_DAYS_AGO);

    OrphanReport report = OrphanRemoval.of(catalog, id("v3"), table).execute();

    assertThat(report.removed().deleted().files()).isEqualTo(1);
    assertThat(report.references().referenced()).containsEntry("delete files", 1L);
    assertThat(orphan).doesNotExist();
    assertThat(filesUnder(tableDir(table))).isEqualTo(live);
    assertThat(Rows.read(table)).hasSize(8);
  }

  @Test
  void ageGuardKeepsAConcurrentWritersUncommittedFile() throws Exception {
    Table table = create("t");
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    DataFile inFlight = TableWrites.writeData(table, rows(100, 10, "a")).get(0);
    Path old = plant(tableDir(table).resolve("data/old-orphan.parquet"), TEN_DAYS_AGO);

    OrphanReport report = OrphanRemoval.of(catalog, id("t"), table).execute();

    assertThat(Path.of(inFlight.location())).exists();
    assertThat(old).doesNotExist();
    assertThat(report.census().keptTooYoung().files()).isEqualTo(1);
    assertThat(report.removed().deleted().files()).isEqualTo(1);
    assertThat(report.guard().olderThan()).isEqualTo("3d");
    // the writer can still commit what it wrote
    table.newAppend().appendFile(inFlight).commit();
    assertThat(Rows.read(table)).hasSize(20);
  }

  @Test
  void aFileCommittedBetweenListingAndTheMetadataReadIsKept() throws Exception {
    Table table = create("t");
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    DataFile late = TableWrites.writeData(table, rows(100, 10, "a")).get(0);
    Path latePath = Path.of(late.location());
    latePath.toFile().setLastModified(TEN_DAYS_AGO);
    Table writer = catalog.loadTable(id("t"));
    FaultyFileIO io = new FaultyFileIO(table.io())
        .afterListing(() -> writer.newAppend().appendFile(late).commit());

    OrphanReport report = OrphanRemovalSeams.io(
            OrphanRemoval.of(catalog, id("t"), table).olderThan(Duration.ZERO), io)
        .execute();

    assertThat(latePath).exists();
    assertThat(report.removed().deleted().files()).isZero();
    table.refresh();
    assertThat(Rows.read(table)).hasSize(20);
  }

  @Test
  void scopeIsTheTableAndItsWritePathsNeverTheWarehouse() throws Exception {
    Path dataElsewhere = dir.resolve("elsewhere/t-data");
    Table table = catalog
        .buildTable(id("t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.WRITE_DATA_LOCATION, dataElsewhere.toString())
        .create();
    Table sibling = create("t_backup");
    DataFile liveElsewhere = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(liveElsewhere).commit();
    assertThat(liveElsewhere.location()).startsWith(dataElsewhere.toString());
    Path warehouse = Path.of(SqliteCatalogs.warehouse(dir));
    List<Path> outOfScope = List.of(
        plant(warehouse.resolve("stray.parquet"), TEN_DAYS_AGO),
        plant(warehouse.resolve("db/stray.parquet"), TEN_DAYS_AGO),
        plant(tableDir(sibling).resolve("data/not-t.parquet"), TEN_DAYS_AGO),
        plant(dir.resolve("elsewhere/neighbour.parquet"), TEN_DAYS_AGO));
    Path inWritePath = plant(dataElsewhere.resolve("category=a/orphan.parquet"), TEN_DAYS_AGO);
    Path inLocation = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);

    OrphanReport report = OrphanRemoval.of(catalog, id("t"), table).execute();

    assertThat(report.guard().scope()).hasSize(2);
    assertThat(outOfScope).allSatisfy(p -> assertThat(p).exists());
    assertThat(inWritePath).doesNotExist();
    assertThat(inLocation).doesNotExist();
    assertThat(Path.of(liveElsewhere.location())).exists();
    assertThat(Rows.read(table)).hasSize(10);
  }

  @Test
  void aPartialListingAborts() throws Exception {
    Table table = create("t");
    DataFile live = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(live).commit();
    Path orphan = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);
    String dropped = Path.of(live.location()).getFileName().toString();
    FaultyFileIO io = new FaultyFileIO(table.io()).dropping(l -> l.endsWith(dropped));

    assertThatThrownBy(() ->
            OrphanRemovalSeams.io(OrphanRemoval.of(catalog, id("t"), table), io).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partial listing")
        .hasMessageContaining(dropped);

    assertThat(orphan).exists();
    assertThat(Path.of(live.location())).exists();
  }

  @Test
  void everyRequiredReferenceCategoryMustBeNonEmptyOnATableWithSnapshots() {
    for (Category missing :
        List.of(Category.METADATA_JSON, Category.MANIFEST_LIST, Category.MANIFEST, Category.DATA)) {
      Map<Category, Long> counts = new EnumMap<>(Category.class);
      for (Category c : Category.values()) {
        counts.put(c, c == missing ? 0L : 3L);
      }
      assertThatThrownBy(() -> Fences.requireEveryCategory(counts, true))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("empty reference category")
          .hasMessageContaining(missing.label);
      Fences.requireEveryCategory(counts, false);
    }
    Map<Category, Long> noOptional = new EnumMap<>(Category.class);
    for (Category c : Category.values()) {
      noOptional.put(c, c.requiredWithSnapshots ? 1L : 0L);
    }
    Fences.requireEveryCategory(noOptional, true);
  }

  @Test
  void aTableWithSnapshotsButNoLiveDataFilesIsRefused() throws Exception {
    Table table = create("t");
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
    table
        .expireSnapshots()
        .retainLast(1)
        .expireOlderThan(System.currentTimeMillis() + 1)
        .commit();
    Path orphan = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);

    assertThatThrownBy(() -> OrphanRemoval.of(catalog, id("t"), table).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("no data files were found");
    assertThat(orphan).exists();
  }

  @Test
  void aReferenceWithAnotherAuthorityForAListedPathIsAPrefixMismatch() throws Exception {
    Table table = create("t");
    DataFile real = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(real).commit();
    DataFile elsewhere = TableWrites.writeData(table, rows(100, 10, "a")).get(0);
    Path elsewherePath = Path.of(elsewhere.location());
    elsewherePath.toFile().setLastModified(TEN_DAYS_AGO);
    // the same object named through another host: the table reads it, the listing names it without
    // one
    table
        .newAppend()
        .appendFile(DataFiles.builder(table.spec())
            .copy(elsewhere)
            .withPath("file://otherhost" + elsewherePath)
            .build())
        .commit();

    assertThatThrownBy(() ->
            OrphanRemoval.of(catalog, id("t"), table).olderThan(Duration.ZERO).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("prefix mismatch")
        .hasMessageContaining("file://otherhost");
    assertThat(elsewherePath).exists();
  }

  @Test
  void aListingUnderAnotherSchemeOrAuthorityIsAPrefixMismatch() throws Exception {
    Table table = create("t");
    DataFile live = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(live).commit();
    Path orphan = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);
    FaultyFileIO io = new FaultyFileIO(table.io())
        .rewriting(l -> l.replaceFirst("^file:/+", "hdfs://namenode:8020/"));

    assertThatThrownBy(() ->
            OrphanRemovalSeams.io(OrphanRemoval.of(catalog, id("t"), table), io).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("prefix mismatch")
        .hasMessageContaining("hdfs://namenode:8020");
    assertThat(orphan).exists();
    assertThat(Path.of(live.location())).exists();
  }

  @Test
  void equivalentSchemesAreNotAMismatch() throws Exception {
    Table table = create("t");
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    Path orphan = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);
    // file:/x, file:///x and /x all name the same file
    FaultyFileIO io =
        new FaultyFileIO(table.io()).rewriting(l -> l.replaceFirst("^file:/+", "file:///"));

    OrphanReport report =
        OrphanRemovalSeams.io(OrphanRemoval.of(catalog, id("t"), table), io).execute();

    assertThat(report.removed().deleted().files()).isEqualTo(1);
    assertThat(orphan).doesNotExist();
    assertThat(Rows.read(table)).hasSize(10);
  }

  @Test
  void aTableInsideAnotherTablesLocationIsRefusedBothWays() throws Exception {
    Table outer = create("outer");
    outer
        .newAppend()
        .appendFile(TableWrites.writeData(outer, rows(0, 10, "a")).get(0))
        .commit();
    Namespace other = Namespace.of("other");
    catalog.createNamespace(other);
    Table inner = catalog
        .buildTable(TableIdentifier.of(other, "inner"), SCHEMA)
        .withLocation(tableDir(outer).resolve("nested").toString())
        .create();
    inner
        .newAppend()
        .appendFile(TableWrites.writeData(inner, rows(0, 10, "a")).get(0))
        .commit();
    Path innerMetadata = Path.of(((org.apache.iceberg.HasTableOperations) inner)
        .operations()
        .current()
        .metadataFileLocation()
        .replaceFirst("^file:", ""));
    innerMetadata.toFile().setLastModified(TEN_DAYS_AGO);

    assertThatThrownBy(() -> OrphanRemoval.of(catalog, id("outer"), outer).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("other.inner");
    assertThatThrownBy(() ->
            OrphanRemoval.of(catalog, TableIdentifier.of(other, "inner"), inner).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("db.outer");
    assertThat(innerMetadata).exists();
    assertThat(Rows.read(inner)).hasSize(10);
  }

  @Test
  void aFileReferencedOutsideTheTableLocationIsNeverACandidate() throws Exception {
    Table source = create("source");
    Table table = create("t");
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    // added from another directory, as an import or add_files would: referenced, but not ours to
    // list
    DataFile imported = TableWrites.writeData(source, rows(100, 10, "a")).get(0);
    Path importedPath = Path.of(imported.location());
    importedPath.toFile().setLastModified(TEN_DAYS_AGO);
    table.newAppend().appendFile(imported).commit();
    table.newDelete().deleteFile(imported).commit();
    table
        .expireSnapshots()
        .expireOlderThan(System.currentTimeMillis() + 1)
        .retainLast(1)
        .cleanExpiredFiles(false)
        .commit();
    Path orphan = plant(tableDir(table).resolve("data/orphan.parquet"), TEN_DAYS_AGO);
    // now referenced by nothing at all, and still outside scope: the run must not touch it
    OrphanReport report =
        OrphanRemoval.of(catalog, id("t"), table).olderThan(Duration.ZERO).execute();
    assertThat(importedPath).exists();
    assertThat(orphan).doesNotExist();
    assertThat(report.orphans())
        .extracting(OrphanReport.OrphanFile::location)
        .noneMatch(l -> l.contains("source"));

    table.newAppend().appendFile(imported).commit();
    OrphanReport referenced =
        OrphanRemoval.of(catalog, id("t"), table).olderThan(Duration.ZERO).execute();
    assertThat(referenced.references().referencedOutsideScope()).isEqualTo(1);
    assertThat(importedPath).exists();
    assertThat(Rows.read(table)).hasSize(20);
  }

  // --- helpers

  Table create(String name) {
    return catalog
        .buildTable(id(name), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  static TableIdentifier id(String name) {
    return TableIdentifier.of("db", name);
  }

  static Path tableDir(Table table) {
    return Path.of(table.location().replaceFirst("^file:", ""));
  }

  static Path plant(Path file, long mtime) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(
        file, ("orphan " + file.getFileName()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(file.toFile().setLastModified(mtime)).isTrue();
    return file;
  }

  static Set<String> filesUnder(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile)
          .map(p -> p.toAbsolutePath().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  static void addStatistics(Table table) throws IOException {
    long snapshotId = table.currentSnapshot().snapshotId();
    OutputFile out =
        table.io().newOutputFile(table.location() + "/metadata/stats-" + snapshotId + ".puffin");
    PuffinWriter writer = Puffin.write(out).createdBy("resurfacer-test").build();
    try (writer) {
      writer.add(new Blob(
          "apache-datasketches-theta-v1",
          List.of(1),
          snapshotId,
          table.currentSnapshot().sequenceNumber(),
          ByteBuffer.wrap(new byte[] {1, 2, 3})));
    }
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(
            snapshotId,
            out.location(),
            writer.fileSize(),
            writer.footerSize(),
            GenericBlobMetadata.from(writer.writtenBlobsMetadata())))
        .commit();
  }

  static List<Record> rows(long start, int n, String category) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("category", category);
      out.add(r);
    }
    return out;
  }
}
