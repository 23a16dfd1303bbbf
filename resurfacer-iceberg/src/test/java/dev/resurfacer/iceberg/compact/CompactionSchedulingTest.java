package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scheduling beside a writer: {@code min-partition-idle} leaves the partitions a writer changed
 * recently for a later run, and {@code commit-every-groups} / {@code commit-every} commit a long
 * run in bounded pieces.
 */
class CompactionSchedulingTest {
  static final TableIdentifier ID = TableIdentifier.of("shop", "orders");

  @TempDir
  Path dir;

  @Test
  void aPartitionChangedWithinTheIdleTimeIsBusyAndTheOthersAreIdle() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 2);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 3);
    writer.seed(3, 3, 20);
    table.refresh();
    long seeded = table.currentSnapshot().timestampMillis();
    Thread.sleep(200);
    writer.deleteAt(fileOfDay(table, 0), 0);
    table.refresh();
    Snapshot delete = table.currentSnapshot();
    assertThat(delete.timestampMillis()).isGreaterThanOrEqualTo(seeded + 200);

    // 100 ms before the delete: only the delete's partition changed since
    IdlePartitions idle =
        IdlePartitions.of(table, delete, Duration.ofMillis(100), delete.timestampMillis() + 1);
    assertThat(idle.busy()).containsExactly(table.spec().specId() + ":day=2026-01-01");
    assertThat(idle.everything()).isFalse();
    // a compaction's own replace snapshot changes no row and keeps the other partitions idle
    Compaction.execute(Compaction.plan(table, options().withPartition("day=2026-01-02")));
    table.refresh();
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(IdlePartitions.of(
                table,
                table.currentSnapshot(),
                Duration.ofMillis(100),
                delete.timestampMillis() + 1)
            .busy())
        .containsExactly(table.spec().specId() + ":day=2026-01-01");
    catalog.close();
  }

  @Test
  void compactionLeavesBusyPartitionsForALaterRunAndSaysSo() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 3);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 5);
    writer.seed(3, 3, 20);
    writer.deleteAt(fileOfDay(table, 1), 3);
    table.refresh();
    long before = table.currentSnapshot().snapshotId();

    // every partition was written within the hour: nothing is compacted, and the plan says why
    CompactionResult none = Compaction.execute(
        Compaction.plan(table, options().withOption(CompactionOptions.MIN_PARTITION_IDLE, "1h")));
    assertThat(none.groups()).isEmpty();
    CompactionPlan plan = Compaction.plan(
            table, options().withOption(CompactionOptions.MIN_PARTITION_IDLE, "1h"))
        .readout();
    assertThat(plan.groups()).isEmpty();
    assertThat(plan.skippedBecause())
        .contains(
            "in 3 partition(s) a writer changed within min-partition-idle (1h), left for a later run");
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);

    Thread.sleep(20);
    CompactionResult all = Compaction.execute(
        Compaction.plan(table, options().withOption(CompactionOptions.MIN_PARTITION_IDLE, "10ms")));
    assertThat(all.groups())
        .hasSize(3)
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(CompactionResult.Status.COMMITTED));
    table.refresh();
    assertThat(Content.of(table)).isEqualTo(writer.expected());
    assertThatThrownBy(() -> Compaction.plan(
            table, options().withOption(CompactionOptions.MIN_PARTITION_IDLE, "soon")))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "min-partition-idle must be a positive duration such as 30s, 10m or 2h (got 'soon')");
    catalog.close();
  }

  @Test
  void commitEveryGroupsCommitsEachPieceOnItsOwn() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 2);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 7);
    writer.seed(4, 3, 20);
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, options().withOption(CompactionOptions.COMMIT_EVERY_GROUPS, "2")));
    assertThat(result.groups())
        .hasSize(4)
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(CompactionResult.Status.COMMITTED));
    assertThat(result.snapshotIds()).as("4 groups, 2 per commit").hasSize(2);
    table.refresh();
    assertThat(Content.of(table)).isEqualTo(writer.expected());
    Invariants.nothingMissing(table);
    assertThatThrownBy(() -> Compaction.execute(Compaction.plan(
            table, options().withOption(CompactionOptions.COMMIT_EVERY_GROUPS, "0"))))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("commit-every-groups must be a positive integer");
    catalog.close();
  }

  @Test
  void commitEveryCommitsWhatIsVerifiedOnceTheTimeHasPassed() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 2);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 9);
    writer.seed(3, 3, 20);
    // each group takes over the second commit-every allows: each one commits on its own
    Compaction.RewriterChoice slow = CdcWriter.thenRunning(g -> Thread.sleep(1_100));
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, options().withOption(CompactionOptions.COMMIT_EVERY, "1s")), slow);
    assertThat(result.groups())
        .hasSize(3)
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(CompactionResult.Status.COMMITTED));
    assertThat(result.snapshotIds()).as("one commit per group").hasSize(3);
    table.refresh();
    assertThat(Content.of(table)).isEqualTo(writer.expected());
    catalog.close();
  }

  /**
   * Unset, the groups rewritten at once are the cores when every input is local and there are at
   * least twice as many groups (one when they are large groups to sort), else Iceberg's 5; the
   * option, when given, is taken as it is.
   */
  @Test
  void groupsAtOnceAreTheCoresForManyLocalGroupsUnlessTheOptionIsGiven() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", 3);
    new CdcWriter(catalog.loadTable(ID), 5).seed(3, 3, 20);
    table.refresh();
    PlannedCompaction plan = Compaction.plan(
        table,
        CompactionOptions.defaults()
            .withOption("min-input-files", "2")
            .withScratchDir(dir.resolve("scratch")));
    assertThat(plan.groups()).hasSize(3);
    assertThat(GroupScheduler.localInputs(plan.groups())).isTrue();

    dev.resurfacer.maintain.RewriteOptions unset = plan.options().shared();
    assertThat(GroupScheduler.groupsAtOnce(unset, true, false, 4, 2)).isEqualTo(2);
    // a sort of large groups: one at a time, on every core
    assertThat(GroupScheduler.groupsAtOnce(unset, true, true, 4, 2)).isEqualTo(1);
    assertThat(GroupScheduler.groupsAtOnce(unset, true, false, 40, 16)).isEqualTo(5);
    // fewer groups than twice the cores all start at once: none is left to run alone
    assertThat(GroupScheduler.groupsAtOnce(unset, true, false, 3, 2)).isEqualTo(5);
    assertThat(GroupScheduler.groupsAtOnce(unset, false, false, 40, 2)).isEqualTo(5);
    dev.resurfacer.maintain.RewriteOptions given = new dev.resurfacer.maintain.RewriteOptions(
        java.util.Map.of("max-concurrent-file-group-rewrites", "4"));
    assertThat(GroupScheduler.groupsAtOnce(given, true, false, 40, 2)).isEqualTo(4);
    assertThat(GroupScheduler.groupsAtOnce(given, true, true, 40, 2)).isEqualTo(4);
    assertThat(GroupScheduler.groupsAtOnce(given, false, false, 40, 2)).isEqualTo(4);

    // and the run itself: every group committed, content unchanged
    java.util.List<String> before = Content.of(table);
    CompactionResult result = Compaction.execute(plan);
    assertThat(result.groups())
        .hasSize(3)
        .allSatisfy(g -> assertThat(g.status()).isEqualTo(CompactionResult.Status.COMMITTED));
    table.refresh();
    assertThat(Content.of(table)).isEqualTo(before);
    catalog.close();
  }

  private CompactionOptions options() {
    return CompactionOptions.defaults()
        .withOption("min-input-files", "2")
        .withOption("max-concurrent-file-group-rewrites", "1")
        .withScratchDir(dir.resolve("scratch"));
  }

  private static String fileOfDay(Table table, int day) throws Exception {
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        if (t.file().partition().get(0, Integer.class)
            == (int) Orders.DAY0.plusDays(day).toEpochDay()) {
          return t.file().location();
        }
      }
    }
    throw new AssertionError("no file on day " + day);
  }
}
