package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small path: groups of a few megabytes rewritten by DuckDB on connections to the one database
 * the process keeps, several at once, with deletes applied, verified by content like every group.
 */
class SmallGroupsTest {
  @TempDir
  Path dir;

  /** Four day partitions of five small files each; the first file of each day loses its row 2 to a position delete. */
  private static Table table(JdbcCatalog catalog, String name) {
    Table t = Orders.create(catalog, "db", name, 2);
    for (int day = 0; day < 4; day++) {
      List<DataFile> firsts = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        DataFile f =
            TableWrites.writeData(t, Orders.rows(day * 1000L + i * 10, 10, day)).get(0);
        t.newAppend().appendFile(f).commit();
        if (i == 0) {
          firsts.add(f);
        }
      }
      DataFile first = firsts.get(0);
      t.newRowDelta()
          .addDeletes(TableWrites.writePositionDeletes(
              t,
              t.spec(),
              first.partition(),
              List.of(new TableWrites.Position(first.location(), 2))))
          .commit();
    }
    return t;
  }

  private static CompactionOptions concurrent(String smallGroupBytes) {
    return CompactionOptions.defaults()
        .withOption("max-concurrent-file-group-rewrites", "4")
        .withOption(CompactionOptions.SMALL_GROUP_BYTES, smallGroupBytes);
  }

  @Test
  void concurrentSmallGroupsOnTheSharedDatabaseWriteWhatADatabaseOfTheirOwnWrites()
      throws Exception {
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir)) {
      compareBothPaths(table(catalog, "shared"), table(catalog, "own"));
    }
  }

  private static void compareBothPaths(Table shared, Table own) {
    List<String> before = Rows.sortedStrings(shared);
    assertThat(before).hasSize(4 * 5 * 10 - 4).isEqualTo(Rows.sortedStrings(own));

    CompactionResult onShared = Compaction.execute(
        Compaction.plan(shared, concurrent(Long.toString(SmallGroups.MAX_BYTES))));
    CompactionResult onOwn = Compaction.execute(Compaction.plan(own, concurrent("0")));

    for (CompactionResult r : List.of(onShared, onOwn)) {
      assertThat(r.verification()).isEqualTo("content");
      assertThat(r.groups()).hasSize(4).allSatisfy(g -> {
        assertThat(g.status()).as(g.message()).isEqualTo(CompactionResult.Status.COMMITTED);
        assertThat(g.runner()).isEqualTo("duckdb");
        assertThat(g.outputFiles()).isEqualTo(1);
      });
      assertThat(r.deleteFilesApplied()).isEqualTo(4);
    }
    shared.refresh();
    own.refresh();
    assertThat(Rows.sortedStrings(shared)).isEqualTo(before);
    assertThat(Rows.sortedStrings(own)).isEqualTo(before);
    assertThat(shared.currentSnapshot().summary().get("total-data-files")).isEqualTo("4");
  }

  @Test
  void theSharedDatabaseKeepsNothingFromOneGroupToTheNext() throws Exception {
    // every table of a group is its connection's temporary table: a second table's groups find no
    // "files" left behind
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir)) {
      for (int i = 0; i < 3; i++) {
        compactAndCompare(table(catalog, "t" + i));
      }
    }
  }

  private static void compactAndCompare(Table t) {
    List<String> before = Rows.sortedStrings(t);
    CompactionResult r = Compaction.execute(Compaction.plan(t, CompactionOptions.defaults()));
    assertThat(r.groups())
        .allSatisfy(g ->
            assertThat(g.status()).as(g.message()).isEqualTo(CompactionResult.Status.COMMITTED));
    t.refresh();
    assertThat(Rows.sortedStrings(t)).isEqualTo(before);
  }

  @Test
  void aSmallGroupSizeThatIsNoSizeIsAUsageErrorAndChangesNothing() throws Exception {
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir)) {
      Table t = table(catalog, "bad");
      long snapshot = t.currentSnapshot().snapshotId();
      for (String bad : List.of("-1", "many")) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> Compaction.execute(Compaction.plan(t, concurrent(bad))))
            .isInstanceOf(dev.resurfacer.UsageException.class)
            .hasMessageContaining("small-group-bytes");
      }
      t.refresh();
      assertThat(t.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    }
  }
}
