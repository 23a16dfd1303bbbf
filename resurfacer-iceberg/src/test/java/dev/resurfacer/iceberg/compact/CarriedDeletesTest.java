package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction beside a CDC writer: deletes and updates the writer commits on a group's inputs while
 * the group is rewritten are carried onto the new files (deletion vectors on v3, position-delete
 * files on v2) instead of failing the commit, and the table always equals the writer's model.
 * The failure modes of a translation (a delete lost, applied twice, applied to the wrong row after
 * a sort) are injected into the translation and must each be refused by its verification.
 */
class CarriedDeletesTest {
  static final TableIdentifier ID = TableIdentifier.of("shop", "orders");

  @TempDir
  Path dir;

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void everyGroupCommitsBesideACdcWriterAndTheTableEqualsTheWritersModel(int version)
      throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", version);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 31L + version);
    writer.seed(3, 4, 40);

    ReentrantLock turn = new ReentrantLock();
    AtomicBoolean writing = new AtomicBoolean(true);
    Random pace = new Random(7);
    CompletableFuture<Void> writes = writer.inBackground(turn, writing, pace, 200, 300);

    List<Ordering> orderings = List.of(
        new Ordering.BinPack(),
        new Ordering.Sort("note DESC"),
        new Ordering.ZOrder(List.of("id", "note")),
        new Ordering.BinPack());
    int groups = 0;
    int carried = 0;
    Table compacting = catalog.loadTable(ID);
    for (Ordering ordering : orderings) {
      CompactionOptions options = CompactionOptions.defaults()
          .withOption("min-input-files", "2")
          .withOption("rewrite-all", "true")
          .withOrdering(ordering)
          .withScratchDir(dir.resolve("scratch"));
      CompactionResult result =
          Compaction.execute(Compaction.plan(compacting, options), waitingForTheWriter(writer));
      assertThat(result.groups())
          .as("groups of the %s run", ordering)
          .isNotEmpty()
          .allSatisfy(g -> assertThat(g.status())
              .as("group %s: %s", g.partition(), g.message())
              .isEqualTo(CompactionResult.Status.COMMITTED));
      groups += result.groups().size();
      carried += (int) result.groups().stream()
          .filter(g -> g.message() != null
              && g.message().startsWith("carried ")
              && !g.message().startsWith("carried 0 "))
          .count();
      turn.lock();
      try {
        assertThat(Content.of(table))
            .as("table after the %s run", ordering)
            .isEqualTo(writer.expected());
      } finally {
        turn.unlock();
      }
    }
    writing.set(false);
    writes.get();

    assertThat(Content.of(table)).isEqualTo(writer.expected());
    Invariants.nothingMissing(table);
    assertThat(carried)
        .as("groups that carried concurrent deletes, of %d", groups)
        .isPositive();
    assertThat(writer.commits.get()).isGreaterThan(orderings.size());
    System.out.printf(
        "cdc v%d: %d groups committed (%d carried concurrent deletes), %d writer commits, %d writer retries%n",
        version, groups, carried, writer.commits.get(), writer.conflicts.get());
    catalog.close();
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void partialProgressCommitsEachPieceAsItCompletesCarryingItsDeletes(int version)
      throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", version);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 11);
    writer.seed(3, 3, 20);
    long before = table.currentSnapshot().snapshotId();
    CompactionOptions options = CompactionOptions.defaults()
        .withOption("min-input-files", "2")
        .withOption("partial-progress.enabled", "true")
        .withOption("partial-progress.max-commits", "3")
        .withOption("max-concurrent-file-group-rewrites", "1")
        .withScratchDir(dir.resolve("scratch"));
    // each group's first input loses its first row once the group is written, before its piece
    // commits
    Compaction.RewriterChoice choice = CdcWriter.thenRunning(g -> {
      List<DataFile> inputs = new ArrayList<>(g.rewrittenFiles());
      inputs.sort(java.util.Comparator.comparing(DataFile::location));
      writer.deleteAt(inputs.get(0).location(), 0);
    });
    CompactionResult result = Compaction.execute(Compaction.plan(table, options), choice);

    assertThat(result.groups()).hasSize(3).allSatisfy(g -> {
      assertThat(g.status()).isEqualTo(CompactionResult.Status.COMMITTED);
      assertThat(g.message()).startsWith("carried 1 row deleted concurrently onto the new files");
    });
    assertThat(result.snapshotIds()).as("one commit per piece").hasSize(3);
    table.refresh();
    assertThat(Content.of(table)).isEqualTo(writer.expected());
    Invariants.nothingMissing(table);
    // each piece is validated from the snapshot it read: the writer's deletes and our pieces
    // interleave
    List<String> operations = new ArrayList<>();
    for (Snapshot s : org.apache.iceberg.util.SnapshotUtil.ancestorsBetween(
        table, table.currentSnapshot().snapshotId(), before)) {
      operations.add(0, s.operation());
    }
    assertThat(operations)
        .containsExactly("delete", "replace", "delete", "replace", "delete", "replace");
    catalog.close();
  }

  enum Fault {
    NONE,
    LOST,
    TWICE,
    WRONG_ROW,
    PAST_END,
    INPUT_REMOVED
  }

  @ParameterizedTest(name = "{0} on v{1}")
  @CsvSource({
    "NONE,2",
    "NONE,3",
    "LOST,2",
    "LOST,3",
    "TWICE,2",
    "TWICE,3",
    "WRONG_ROW,2",
    "WRONG_ROW,3",
    "PAST_END,2",
    "PAST_END,3",
    "INPUT_REMOVED,3"
  })
  void aTranslationThatLosesDoublesOrMisplacesADeleteFailsVerification(Fault fault, int version)
      throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = Orders.create(catalog, "shop", "orders", version);
    CdcWriter writer = new CdcWriter(catalog.loadTable(ID), 5);
    writer.seed(1, 3, 30);
    CompactionOptions options = CompactionOptions.defaults()
        .withOption("min-input-files", "2")
        .withOrdering(new Ordering.Sort("note DESC"))
        .withRunner(CompactionOptions.Runner.GENERIC)
        .withScratchDir(dir.resolve("scratch"));
    PlannedCompaction planned = Compaction.plan(table, options);
    RewriteFileGroup group = planned.groups().get(0);
    Files.createDirectories(dir.resolve("scratch"));
    GroupRewriter.Settings settings = new GroupRewriter.Settings(
        options.memoryBytes(),
        1,
        dir.resolve("scratch"),
        planned.targetFileSize(),
        planned.ordering());
    assertThat(GroupRewrite.run(table, group, 0, new GenericRewriter(), settings, options)
            .verdict())
        .isEqualTo(RewrittenGroup.Verdict.VERIFIED);

    // the writer deletes rows of two inputs meanwhile; position 0 has a twin equal in every value
    // at 1
    List<DataFile> inputs = new ArrayList<>(group.rewrittenFiles());
    inputs.sort(java.util.Comparator.comparing(DataFile::location));
    writer.deleteAt(inputs.get(0).location(), 0);
    writer.deleteAt(inputs.get(1).location(), 5);
    writer.deleteAt(inputs.get(1).location(), 9);
    if (fault == Fault.INPUT_REMOVED) {
      // a copy-on-write writer replaces the file instead
      writer.forget(inputs.get(2).location());
      table.refresh();
      table.newDelete().deleteFile(inputs.get(2)).commit();
    }
    table.refresh();
    Snapshot writers = table.currentSnapshot();
    assertThat(Content.of(table)).isEqualTo(writer.expected());

    CarryingCommits commits = new CarryingCommits(
        table,
        planned.startingSnapshotId(),
        true,
        options.filter(),
        Integer.MAX_VALUE,
        null,
        Map.of(Compaction.SUMMARY_PROPERTY, "compact"),
        faulty(fault));
    commits.offer(group);
    CarryingCommits.Outcome outcome = commits.finish();

    table.refresh();
    assertThat(Content.of(table))
        .as("content after the commit attempt")
        .isEqualTo(writer.expected());
    Invariants.nothingMissing(table);
    switch (fault) {
      case NONE -> {
        assertThat(outcome.committed()).containsExactly(group);
        assertThat(outcome.notes().get(group)).startsWith("carried 3 rows deleted concurrently");
        assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
        assertThat(table.currentSnapshot().parentId()).isEqualTo(writers.snapshotId());
      }
      case INPUT_REMOVED -> {
        assertThat(outcome.committed()).isEmpty();
        assertThat(outcome.failures().get(group)).contains("was removed by a concurrent commit");
        assertThat(table.currentSnapshot().snapshotId()).isEqualTo(writers.snapshotId());
      }
      default -> {
        assertThat(outcome.committed()).isEmpty();
        assertThat(outcome.failures().get(group)).contains("carried deletes failed verification");
        assertThat(table.currentSnapshot().snapshotId())
            .as("nothing committed")
            .isEqualTo(writers.snapshotId());
      }
    }
    for (DataFile out : group.addedFiles()) {
      assertThat(Files.exists(Path.of(java.net.URI.create(out.location()).getPath())))
          .as("new file %s kept only when committed", out.location())
          .isEqualTo(fault == Fault.NONE);
    }
    catalog.close();
  }

  /** The translation as a defective implementation would make it. */
  private static UnaryOperator<ConcurrentDeletes.Translation> faulty(Fault fault) {
    return t -> {
      Map<DataFile, List<Long>> out = new java.util.LinkedHashMap<>();
      t.outputPositions().forEach((f, p) -> out.put(f, new ArrayList<>(p)));
      DataFile first = out.keySet().iterator().next();
      List<Long> positions = out.get(first);
      switch (fault) {
        case LOST -> positions.remove(0);
        case TWICE -> {
          // the same delete also applied to the row next to it: after the sort, its twin equal in
          // every value
          long p = positions.get(0);
          positions.add(positions.contains(p + 1) || p + 1 >= first.recordCount() ? p - 1 : p + 1);
        }
        case PAST_END -> positions.add(first.recordCount() + 5);
        case WRONG_ROW -> {
          // positions kept from the inputs, as a translation blind to the sort would
          out.clear();
          List<Long> blind = new ArrayList<>();
          t.deletedInputPositions().values().forEach(blind::addAll);
          out.put(first, blind);
        }
        default -> {
          return t;
        }
      }
      return new ConcurrentDeletes.Translation(t.deletedInputPositions(), out);
    };
  }

  /** The plan's own runner, whose group then waits until the writer has committed twice more. */
  private static Compaction.RewriterChoice waitingForTheWriter(CdcWriter writer) {
    return CdcWriter.thenRunning(g -> {
      int before = writer.commits.get();
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (writer.commits.get() < before + 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    });
  }
}
