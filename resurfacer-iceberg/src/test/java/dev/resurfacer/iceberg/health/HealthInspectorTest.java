package dev.resurfacer.iceberg.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HealthInspectorTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()));

  @TempDir
  Path dir;

  @Test
  void countsFilesDeletesSnapshotsAndManifestsExactly() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();

    List<DataFile> data = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      DataFile file = TableWrites.writeData(table, rows(f * 100, 100, "a")).get(0);
      table.newAppend().appendFile(file).commit();
      data.add(file);
    }
    DataFile b = TableWrites.writeData(table, rows(1000, 50, "b")).get(0);
    table.newAppend().appendFile(b).commit();
    data.add(b);

    DeleteFile pos = TableWrites.writePositionDeletes(
        table,
        table.spec(),
        data.get(0).partition(),
        List.of(
            new Position(data.get(0).location(), 3), new Position(data.get(1).location(), 7)));
    Schema idOnly = SCHEMA.select("id");
    List<Record> ids = new ArrayList<>();
    for (long id : new long[] {1000, 1001, 1002}) {
      Record r = GenericRecord.create(idOnly);
      r.setField("id", id);
      ids.add(r);
    }
    DeleteFile eq =
        TableWrites.writeEqualityDeletes(table, table.spec(), b.partition(), idOnly, ids);
    table.newRowDelta().addDeletes(pos).addDeletes(eq).commit();
    table.refresh();

    TableHealth h = HealthInspector.inspect("db.t", table);

    long bytesOnDisk =
        data.stream().mapToLong(d -> new File(d.location()).length()).sum();
    assertThat(h.layout().formatVersion()).isEqualTo(2);
    assertThat(h.history().snapshots()).isEqualTo(5);
    assertThat(h.data().dataFiles()).isEqualTo(4);
    assertThat(h.data().dataRecords()).isEqualTo(350);
    assertThat(h.data().dataBytes()).isEqualTo(bytesOnDisk);
    assertThat(h.data().smallDataFiles()).isEqualTo(4);
    assertThat(h.data().sizeHistogram().get(0).files()).isEqualTo(4);
    assertThat(h.deletes().deleteFiles()).isEqualTo(2);
    assertThat(h.deletes().positionDeleteFiles()).isEqualTo(1);
    assertThat(h.deletes().positionDeleteRecords()).isEqualTo(2);
    assertThat(h.deletes().equalityDeleteFiles()).isEqualTo(1);
    assertThat(h.deletes().equalityDeleteRecords()).isEqualTo(3);
    assertThat(h.deletes().deletionVectors()).isZero();
    assertThat(h.deletes().deleteBytes())
        .isEqualTo(new File(pos.location()).length() + new File(eq.location()).length());
    // merge appends of one file each keep one manifest per commit until the merge threshold (100)
    assertThat(h.manifests().dataManifests()).isEqualTo(4);
    assertThat(h.manifests().deleteManifests()).isEqualTo(1);
    // create + 5 commits = 6 metadata.json files, all in the log and on disk
    assertThat(h.metadata().metadataFiles()).isEqualTo(6);
    assertThat(h.metadata().metadataFilesOnDisk()).isEqualTo(6);
    long metadataOnDisk;
    try (Stream<Path> files = Files.walk(Path.of(table.location(), "metadata"))) {
      metadataOnDisk =
          files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
    assertThat(h.metadata().metadataBytes()).isEqualTo(metadataOnDisk);
    assertThat(h.maintenanceProperties()).containsEntry("write.parquet.compression-codec", "zstd");
    assertThat(h.history().refs())
        .containsExactly(
            new TableHealth.Ref("main", "branch", table.currentSnapshot().snapshotId()));
  }

  @Test
  void aMeasurementWithTalliesReadsOnlyTheManifestsAddedSinceAndCountsTheSame() {
    org.apache.iceberg.jdbc.JdbcCatalog catalog = new org.apache.iceberg.jdbc.JdbcCatalog();
    catalog.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    catalog.initialize(
        "rec",
        java.util.Map.of(
            org.apache.iceberg.CatalogProperties.URI, SqliteCatalogs.uri(dir),
            org.apache.iceberg.CatalogProperties.WAREHOUSE_LOCATION, SqliteCatalogs.warehouse(dir),
            org.apache.iceberg.CatalogProperties.FILE_IO_IMPL,
                dev.resurfacer.iceberg.testing.RecordingFileIO.class.getName()));
    Table t = dev.resurfacer.iceberg.testing.Fleet.smallFiles(catalog, "db", "t", 6);
    ManifestTallies tallies = new ManifestTallies();
    TableHealth first = HealthInspector.inspect("t", t, 0L, tallies);
    assertThat(first).isEqualTo(HealthInspector.inspect("t", t, 0L));
    assertThat(first.data().dataFiles()).isEqualTo(6);

    var append = t.newAppend();
    dev.resurfacer.iceberg.write.TableWrites.writeData(
            t, dev.resurfacer.iceberg.testing.Orders.rows(500, 5, 1))
        .forEach(append::appendFile);
    append.commit();
    t.refresh();
    dev.resurfacer.iceberg.testing.RecordingFileIO.reset();
    TableHealth second = HealthInspector.inspect("t", t, 0L, tallies);
    java.util.Set<String> manifests =
        dev.resurfacer.iceberg.testing.RecordingFileIO.opened().stream()
            .filter(p ->
                p.endsWith(".avro") && !p.substring(p.lastIndexOf('/') + 1).startsWith("snap-"))
            .collect(java.util.stream.Collectors.toSet());
    long current = t.currentSnapshot().snapshotId();
    assertThat(manifests)
        .containsExactly(t.currentSnapshot().dataManifests(t.io()).stream()
            .filter(m -> m.snapshotId() == current)
            .findFirst()
            .orElseThrow()
            .path());
    assertThat(second).isEqualTo(HealthInspector.inspect("t", t, 0L));
    assertThat(second.data().dataFiles()).isEqualTo(7);
  }

  @Test
  void countsDeletionVectorsOnFormatV3() {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "v3"), SCHEMA)
        .withProperty(TableProperties.FORMAT_VERSION, "3")
        .create();
    DataFile f1 = TableWrites.writeData(table, rows(0, 20, "x")).get(0);
    DataFile f2 = TableWrites.writeData(table, rows(20, 20, "y")).get(0);
    table.newAppend().appendFile(f1).appendFile(f2).commit();
    List<DeleteFile> dvs =
        TableWrites.writeDeletionVectors(table, Map.of(f1, List.of(1L, 2L, 3L), f2, List.of(0L)));
    var delta = table.newRowDelta();
    dvs.forEach(delta::addDeletes);
    delta.commit();
    table.refresh();

    TableHealth h = HealthInspector.inspect("db.v3", table);
    assertThat(h.layout().formatVersion()).isEqualTo(3);
    assertThat(h.deletes().deletionVectors()).isEqualTo(2);
    assertThat(h.deletes().deletionVectorRecords()).isEqualTo(4);
    assertThat(h.deletes().positionDeleteFiles()).isZero();
    assertThat(h.deletes().deleteFiles()).isEqualTo(2);
    assertThat(h.data().dataRecords()).isEqualTo(40);
  }

  /**
   * A concurrent commit's cleanup deletes a failed attempt's manifest list while the metadata
   * directory is listed (two compaction loops beside a writer hit it as "cannot open table" when
   * the listing went through Hadoop's local file system). The walk counts what is still there.
   */
  @Test
  void aFileDeletedWhileTheMetadataDirectoryIsListedIsNotATableFault() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(0, 10, "a")).get(0))
        .commit();
    table.refresh();
    TableHealth clean = HealthInspector.inspect("db.t", table);
    Path metadata = Path.of(table.location(), "metadata");
    List<Path> failedAttempts = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      failedAttempts.add(
          Files.writeString(metadata.resolve("snap-" + i + "-2-failed-attempt.avro"), "x"));
    }

    long[] listed = HealthInspector.listLocalMetadata(
        metadata, first -> failedAttempts.forEach(p -> p.toFile().delete()));

    assertThat(failedAttempts).as("the cleanup ran during the listing").noneMatch(Files::exists);
    assertThat(listed[0]).isEqualTo(clean.metadata().metadataFilesOnDisk());
    assertThat(listed[1])
        .isBetween(
            clean.metadata().metadataBytes(),
            clean.metadata().metadataBytes() + failedAttempts.size());
  }

  /**
   * A local metadata directory is never listed through the table's FileIO: Hadoop's local listing
   * forks a process per file. The FileIO here refuses to list, and the counts still equal a walk.
   */
  @Test
  void aLocalMetadataDirectoryIsWalkedWithoutTheFileIo() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int i = 0; i < 3; i++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, rows(i * 10, 10, "a")).get(0))
          .commit();
    }
    table.refresh();
    var ops = ((org.apache.iceberg.HasTableOperations) table).operations();
    org.apache.iceberg.io.FileIO noListing =
        new ListingRefused((org.apache.iceberg.io.SupportsPrefixOperations) table.io());
    Table refusing = new org.apache.iceberg.BaseTable(
        new org.apache.iceberg.TableOperations() {
          public org.apache.iceberg.TableMetadata current() {
            return ops.current();
          }

          public org.apache.iceberg.TableMetadata refresh() {
            return ops.refresh();
          }

          public void commit(
              org.apache.iceberg.TableMetadata base, org.apache.iceberg.TableMetadata metadata) {
            ops.commit(base, metadata);
          }

          public org.apache.iceberg.io.FileIO io() {
            return noListing;
          }

          public String metadataFileLocation(String fileName) {
            return ops.metadataFileLocation(fileName);
          }

          public org.apache.iceberg.io.LocationProvider locationProvider() {
            return ops.locationProvider();
          }
        },
        table.name());

    TableHealth h = HealthInspector.inspect("db.t", refusing);

    long jsonFiles;
    long bytes = 0;
    try (Stream<Path> files = Files.list(Path.of(table.location(), "metadata"))) {
      List<Path> all =
          files.filter(p -> !p.getFileName().toString().endsWith(".crc")).toList();
      jsonFiles =
          all.stream().filter(p -> p.toString().endsWith(".metadata.json")).count();
      for (Path p : all) {
        bytes += Files.size(p);
      }
    }
    assertThat(jsonFiles).isEqualTo(4);
    assertThat(h.metadata().metadataFilesOnDisk()).isEqualTo(jsonFiles);
    assertThat(h.metadata().metadataBytes()).isEqualTo(bytes);
  }

  /** The real FileIO, except that it refuses to list. */
  private record ListingRefused(org.apache.iceberg.io.SupportsPrefixOperations io)
      implements org.apache.iceberg.io.SupportsPrefixOperations {
    @Override
    public Iterable<org.apache.iceberg.io.FileInfo> listPrefix(String prefix) {
      throw new AssertionError("listed through the FileIO: " + prefix);
    }

    @Override
    public void deletePrefix(String prefix) {
      io.deletePrefix(prefix);
    }

    @Override
    public org.apache.iceberg.io.InputFile newInputFile(String path) {
      return io.newInputFile(path);
    }

    @Override
    public org.apache.iceberg.io.OutputFile newOutputFile(String path) {
      return io.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      io.deleteFile(path);
    }
  }

  static List<Record> rows(long start, int n, String category) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("category", category);
      out.add(r);
    }
    return out;
  }
}
