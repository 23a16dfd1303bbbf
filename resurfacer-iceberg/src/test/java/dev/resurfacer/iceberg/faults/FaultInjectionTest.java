package dev.resurfacer.iceberg.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanRemovalSeams;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each operation against a FileIO and commit path that fail on purpose. The promise: the operation
 * completes correctly or stops with a message naming the fault, and never deletes a live file —
 * every snapshot and ref still reads the same rows and every referenced file is still there.
 */
class FaultInjectionTest {
  static final TableIdentifier ID = TableIdentifier.of("shop", "orders");
  static final long OLD = System.currentTimeMillis() - Duration.ofDays(10).toMillis();

  @TempDir
  Path dir;

  JdbcCatalog catalog;
  Table table;
  Faults faults;
  Table faulty;
  TableState before;
  Set<Path> filesBefore;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    table = Orders.create(catalog, "shop", "orders", 2);
    DataFile first = null;
    for (int i = 0; i < 6; i++) {
      DataFile f = TableWrites.writeData(table, Orders.rows(i * 10L, 10, i % 2)).get(0);
      first = first == null ? f : first;
      table.newAppend().appendFile(f).commit();
    }
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table, table.spec(), first.partition(), List.of(new Position(first.location(), 2))))
        .commit();
    table
        .manageSnapshots()
        .createTag("audit", table.currentSnapshot().snapshotId())
        .commit();
    table.refresh();
    Faults[] out = new Faults[1];
    faulty = Faults.wrap(table, out);
    faults = out[0];
    before = TableState.capture(table);
    filesBefore = Disk.files(table);
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  private static CompactionOptions compaction() {
    return CompactionOptions.defaults().withOption("min-input-files", "2");
  }

  /** Loads the table fresh from the catalog and checks nothing was lost. */
  private Table intact() {
    return Invariants.sameRowsAndNothingMissing(catalog, ID, before);
  }

  private void unchanged() {
    Table t = intact();
    assertThat(TableState.metadataLocation(t)).isEqualTo(before.metadataLocation());
    assertThat(Disk.files(t)).as("files on storage").isEqualTo(filesBefore);
  }

  @Test
  void compactionWhoseCommitIsRejectedCommitsNothingAndRemovesItsFiles() {
    faults.commit = Faults.Commit.FAIL;
    CompactionResult result = Compaction.execute(Compaction.plan(faulty, compaction()));
    assertThat(result.groups()).isNotEmpty().allSatisfy(g -> {
      assertThat(g.status()).isEqualTo(CompactionResult.Status.NOT_COMMITTED);
      assertThat(g.message()).contains("injected fault: commit rejected");
    });
    unchanged();
  }

  @Test
  void compactionWithAnUnknownCommitStateKeepsItsNewFilesAndSaysSo() {
    faults.commit = Faults.Commit.UNKNOWN_AFTER_SUCCESS;
    CompactionResult result = Compaction.execute(Compaction.plan(faulty, compaction()));
    assertThat(result.groups())
        .isNotEmpty()
        .allSatisfy(g ->
            assertThat(g.message()).contains("commit state unknown").doesNotContain("removed"));
    Table t = intact();
    assertThat(t.currentSnapshot().operation()).as("the commit did land").isEqualTo("replace");
  }

  @Test
  void compactionWhoseInputsCannotBeReadCommitsNothing() {
    faults.failReads = p -> p.contains("/data/") && p.contains("/data-");
    // the generic runner reads every input through the table's FileIO (DuckDB opens local files
    // itself, and without deletes a group's row count is verified from the manifests)
    CompactionResult result = Compaction.execute(
        Compaction.plan(faulty, compaction().withRunner(CompactionOptions.Runner.GENERIC)));
    assertThat(result.groups()).isNotEmpty().allSatisfy(g -> {
      assertThat(g.status()).isNotEqualTo(CompactionResult.Status.COMMITTED);
      assertThat(g.message()).contains("injected fault");
    });
    unchanged();
  }

  @Test
  void compactionWhoseOutputFailsHalfWayCommitsNothing() {
    faults.failWrites = p -> p.contains("/data/");
    CompactionResult result = Compaction.execute(
        Compaction.plan(faulty, compaction().withRunner(CompactionOptions.Runner.GENERIC)));
    assertThat(result.groups()).isNotEmpty().allSatisfy(g -> {
      assertThat(g.status()).isEqualTo(CompactionResult.Status.FAILED);
      assertThat(g.message()).isNotBlank();
    });
    unchanged();
  }

  @Test
  void expiryWhoseDeletesFailCommitsAndReportsWhatIsLeft() {
    faults.failDeletes = true;
    ExpireResult result = SnapshotExpiry.execute(SnapshotExpiry.plan(
        "shop.orders", faulty, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
    assertThat(result.committed()).isTrue();
    assertThat(result.notDeleted()).isNotEmpty();
    assertThat(Disk.files(intact())).as("nothing deleted").containsAll(filesBefore);
  }

  @Test
  void expiryWhoseCommitIsRejectedChangesNothing() {
    faults.commit = Faults.Commit.FAIL;
    Throwable t = catchThrowable(() -> SnapshotExpiry.execute(SnapshotExpiry.plan(
        "shop.orders", faulty, new ExpireOptions(Duration.ZERO, 1, List.of(), false))));
    assertThat(t).hasMessageContaining("injected fault: commit rejected");
    unchanged();
  }

  @Test
  void expiryWithAnUnknownCommitStateDeletesNothing() {
    faults.commit = Faults.Commit.UNKNOWN_AFTER_SUCCESS;
    Throwable t = catchThrowable(() -> SnapshotExpiry.execute(SnapshotExpiry.plan(
        "shop.orders", faulty, new ExpireOptions(Duration.ZERO, 1, List.of(), false))));
    assertThat(t).hasMessageContaining("injected fault: commit timed out");
    assertThat(Disk.files(intact()))
        .as("no file deleted on an unknown state")
        .containsAll(filesBefore);
  }

  @Test
  void manifestRewriteWhoseWritesFailCommitsNothing() {
    faults.failWrites = p -> p.contains("/metadata/") && p.endsWith(".avro");
    Throwable t = catchThrowable(
        () -> ManifestRewriter.execute(ManifestRewriter.plan("shop.orders", faulty)));
    assertThat(t).hasRootCauseMessage("injected fault: write failed half-way");
    Table after = intact();
    assertThat(TableState.metadataLocation(after)).isEqualTo(before.metadataLocation());
  }

  @Test
  void manifestRewriteWithAnUnknownCommitStateLosesNothing() {
    faults.commit = Faults.Commit.UNKNOWN_AFTER_SUCCESS;
    Throwable t = catchThrowable(
        () -> ManifestRewriter.execute(ManifestRewriter.plan("shop.orders", faulty)));
    assertThat(t).hasMessageContaining("injected fault: commit timed out");
    intact();
  }

  @Test
  void orphanRemovalWhoseListingBreaksOffDeletesNothing() throws Exception {
    Path orphan = plantOrphan();
    faults.listLimit = 3;
    Throwable t = catchThrowable(() -> OrphanRemovalSeams.io(
            OrphanRemoval.of(catalog, ID, faulty).olderThan(Duration.ofDays(1)), faults)
        .execute());
    assertThat(t).hasMessageContaining("injected fault: listing");
    assertThat(orphan).exists();
    intact();
  }

  @Test
  void orphanRemovalWhoseDeletesFailCountsThemAndLosesNothing() throws Exception {
    Path orphan = plantOrphan();
    faults.failDeletes = true;
    OrphanReport report = OrphanRemovalSeams.io(
            OrphanRemoval.of(catalog, ID, faulty).olderThan(Duration.ofDays(1)), faults)
        .execute();
    assertThat(report.census().orphans().files()).isEqualTo(1);
    assertThat(report.removed().failedDeletes()).isEqualTo(1);
    assertThat(orphan).exists();
    intact();
  }

  private Path plantOrphan() throws Exception {
    Path orphan = Path.of(table.location(), "data", "orphan.parquet");
    Files.writeString(orphan, "left behind");
    orphan.toFile().setLastModified(OLD);
    filesBefore = Disk.files(table);
    return orphan;
  }
}
