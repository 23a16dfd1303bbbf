package dev.resurfacer.iceberg.engines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bad remote rewrite is undone only while it is still the table's head: a later writer's commit is never thrown away. */
class RemoteRewritesTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  /** A "rewrite" that drops one file's rows: the corruption a remote engine could commit. */
  private static Snapshot badRewrite(Table table) {
    DataFile victim;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      victim = tasks.iterator().next().file();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    DataFile empty = DataFiles.builder(table.spec())
        .copy(victim)
        .withPath(victim.location() + ".copy")
        .withRecordCount(0)
        .withFileSizeInBytes(victim.fileSizeInBytes())
        .build();
    table.newRewrite().deleteFile(victim).addFile(empty).commit();
    return table.currentSnapshot();
  }

  @Test
  void eachRewriteIsFoundWithItsParentAndRolledBackOnlyWhileItIsStillTheHead() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 3);
    long before = table.currentSnapshot().snapshotId();
    List<String> rows = Rows.sortedStrings(table);

    Snapshot rewrite = badRewrite(table);
    assertThat(RemoteRewrites.since(table, before))
        .extracting(Snapshot::snapshotId)
        .containsExactly(rewrite.snapshotId());
    assertThat(rewrite.parentId()).isEqualTo(before);

    assertThat(RemoteRewrites.rollBackIfStillCurrent(table, rewrite)).isTrue();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
  }

  @Test
  void aCommitOnTopOfTheRewriteIsNeverUndone() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 3);
    long before = table.currentSnapshot().snapshotId();
    Snapshot rewrite = badRewrite(table);
    // a writer appends after the remote engine's rewrite and before our check
    Table writer =
        catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("raw", "clicks"));
    DataFile appended;
    try (CloseableIterable<FileScanTask> tasks = writer.newScan().planFiles()) {
      appended = tasks.iterator().next().file();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    writer
        .newFastAppend()
        .appendFile(DataFiles.builder(writer.spec())
            .copy(appended)
            .withPath(appended.location() + ".again")
            .build())
        .commit();
    long head = writer.currentSnapshot().snapshotId();

    assertThat(RemoteRewrites.since(table, before))
        .extracting(Snapshot::snapshotId)
        .containsExactly(rewrite.snapshotId());
    assertThat(RemoteRewrites.rollBackIfStillCurrent(table, rewrite)).isFalse();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(head);
  }
}
