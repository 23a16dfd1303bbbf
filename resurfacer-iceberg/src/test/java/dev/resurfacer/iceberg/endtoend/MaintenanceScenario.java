package dev.resurfacer.iceberg.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DanglingDeletesResult;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanRemovalSeams;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.RecordingFileIO;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Every maintenance operation, in the order {@code maintain} runs them, on one table of a real
 * catalog: compact (position and equality deletes applied), remove-dangling-deletes,
 * rewrite-manifests, expire, remove-orphans. After each step the live rows must be unchanged; at the
 * end the files in storage must be exactly the reachable set.
 */
final class MaintenanceScenario {
  private static final Schema ID = Orders.SCHEMA.select("id");

  private final Catalog catalog;
  private final Function<String, Set<String>> listStorage;
  private final Path scratch;

  /** {@code listStorage} lists every file under a location straight from the storage, not through our code. */
  MaintenanceScenario(Catalog catalog, Function<String, Set<String>> listStorage, Path scratch) {
    this.catalog = catalog;
    this.listStorage = listStorage;
    this.scratch = scratch;
  }

  /** Builds a messy v2 table: 3 days x 3 small appends, one position delete, one equality delete. */
  Table messyTable(String namespace, String name) {
    Table table = Orders.create(catalog, namespace, name, 2);
    long id = 0;
    for (int round = 0; round < 3; round++) {
      for (int day = 0; day < 3; day++) {
        var append = table.newAppend();
        TableWrites.writeData(table, Orders.rows(id, 10, day)).forEach(append::appendFile);
        append.commit();
        id += 10;
      }
    }
    DataFile day0 = firstDataFile(table, 0);
    DeleteFile pos = TableWrites.writePositionDeletes(
        table,
        Orders.SPEC,
        day0.partition(),
        List.of(
            new TableWrites.Position(day0.location(), 1),
            new TableWrites.Position(day0.location(), 4)));
    table.newRowDelta().addDeletes(pos).commit();
    DataFile day1 = firstDataFile(table, 1);
    Record idRow = GenericRecord.create(ID);
    idRow.setField("id", 11L);
    DeleteFile eq =
        TableWrites.writeEqualityDeletes(table, Orders.SPEC, day1.partition(), ID, List.of(idRow));
    table.newRowDelta().addDeletes(eq).commit();
    table.refresh();
    return table;
  }

  /** Runs every operation; returns the live rows, which must equal the rows before. */
  List<String> maintain(TableIdentifier id, Table table) throws IOException {
    String name = id.toString();
    List<String> before = Rows.sortedStrings(table);
    assertThat(before).hasSize(90 - 2 - 1);
    Set<String> inputs = liveFiles(table);

    RecordingFileIO.reset();
    CompactionResult compacted = Compaction.execute(Compaction.plan(
        table,
        CompactionOptions.defaults().withOption("min-input-files", "2").withScratchDir(scratch)));
    assertThat(compacted.allCommitted()).as("%s", compacted.groups()).isTrue();
    assertThat(compacted.rewrittenFiles()).isEqualTo(9);
    assertThat(compacted.deleteFilesApplied()).isEqualTo(2);
    assertThat(compacted.groups()).allSatisfy(g -> assertThat(g.runner()).isEqualTo("duckdb"));
    if (table.location().startsWith("s3://")
        || table.location().startsWith("abfss://")
        || table.location().startsWith("gs://")) {
      // DuckDB has no network extensions (autoload off): every input reached it through FileIO,
      // staged
      assertThat(table.io()).isInstanceOf(RecordingFileIO.class);
      assertThat(RecordingFileIO.opened()).containsAll(inputs);
    }
    try (var leftovers = Files.list(scratch)) {
      assertThat(leftovers).as("staged copies are cleaned up").isEmpty();
    }
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);

    DanglingDeletesResult dangling = DanglingDeletes.execute(DanglingDeletes.plan(name, table));
    assertThat(dangling.committed()).isTrue();
    // the equality delete outlives compaction (core drops the file-scoped position delete with its
    // data file)
    assertThat(compacted.danglingDeleteFiles()).isEqualTo(1);
    assertThat(dangling.files()).isEqualTo(1);
    assertThat(dangling.dangling()).allSatisfy(d -> assertThat(d.kind()).isEqualTo("equality"));
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().deleteManifests(table.io()))
        .allSatisfy(m -> assertThat(m.hasAddedFiles() || m.hasExistingFiles()).isFalse());

    // streaming appends after compaction: one small manifest each, for rewrite-manifests to cluster
    for (int i = 0; i < 4; i++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(1000 + 10L * i, 10, 3)).forEach(append::appendFile);
      append.commit();
    }
    table.refresh();
    before = Rows.sortedStrings(table);
    assertThat(before).hasSize(87 + 40);
    ManifestRewriteResult manifests = ManifestRewriter.execute(ManifestRewriter.plan(name, table));
    assertThat(manifests.committed()).as("%s", manifests).isTrue();
    assertThat(manifests.dataManifestsAfter()).isLessThan(manifests.dataManifestsBefore());
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);

    ExpireResult expired = SnapshotExpiry.execute(
        SnapshotExpiry.plan(name, table, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
    assertThat(expired.committed()).isTrue();
    assertThat(expired.snapshots()).isNotEmpty();
    assertThat(expired.notDeleted()).isEmpty();
    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);

    // a stray file no snapshot references, as a failed writer leaves behind
    String stray =
        table.locationProvider().newDataLocation("stray-" + System.nanoTime() + ".parquet");
    try (OutputStream out = table.io().newOutputFile(stray).create()) {
      out.write(new byte[] {1, 2, 3});
    }
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));
    OrphanReport orphans = OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, id, table).olderThan(Duration.ofHours(1)), later)
        .execute();
    assertThat(orphans.removed().deleted().files())
        .isEqualTo(orphans.census().orphans().files());
    assertThat(orphans.removed().failedDeletes()).isZero();
    assertThat(orphans.census().orphans().files()).as("%s", orphans).isGreaterThanOrEqualTo(1);

    table.refresh();
    assertThat(listStorage.apply(table.location())).isEqualTo(reachable(table));
    List<String> after = Rows.sortedStrings(table);
    assertThat(after).isEqualTo(before);
    return after;
  }

  /** The current snapshot's files plus every metadata.json in the log: what must remain in storage. */
  static Set<String> reachable(Table table) {
    Set<String> out = new TreeSet<>(Disk.reachableFrom(table, table.currentSnapshot()));
    TableMetadata current = ((HasTableOperations) table).operations().current();
    out.add(current.metadataFileLocation());
    current.previousFiles().forEach(e -> out.add(e.file()));
    return out;
  }

  static Set<String> liveFiles(Table table) throws IOException {
    Set<String> out = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        out.add(t.file().location());
        t.deletes().forEach(d -> out.add(d.location()));
      }
    }
    return out;
  }

  private static DataFile firstDataFile(Table table, int day) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        if (t.file().partition().get(0, Integer.class)
            == (int) Orders.DAY0.plusDays(day).toEpochDay()) {
          files.add(t.file());
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    files.sort(java.util.Comparator.comparing(DataFile::location));
    return files.get(0);
  }
}
