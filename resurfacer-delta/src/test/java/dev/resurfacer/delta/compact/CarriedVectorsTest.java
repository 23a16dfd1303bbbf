package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * delta-spark DELETE, UPDATE and MERGE with deletion vectors on the inputs of our compaction while
 * it runs: their deletion vectors are carried onto the new files, every bin commits, and the table
 * holds exactly the writer's rows (a twin table that ran the same statements without compaction
 * is the writer's model), as delta-spark reads them.
 */
class CarriedVectorsTest {
  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private DeltaTable copy(String name) throws IOException {
    return DeltaTables.open(
        "raw.events", TestTables.copy(source, dir.resolve(name)).toString(), dir);
  }

  private static void run(DeltaTable table, String statement) {
    DeltaSpark.sql(statement.replace("$T", DeltaSpark.table(table.localRoot())));
  }

  /** The statements a CDC writer runs, each deleting or changing rows of both partitions the bins compact. */
  private static String statement(int k) {
    return switch (k % 3) {
      case 0 -> "DELETE FROM $T WHERE id % 13 = " + (k % 13);
      case 1 -> "UPDATE $T SET v = concat(v, '-u" + k + "') WHERE id % 11 = " + (k % 11);
      default ->
        "MERGE INTO $T t USING (SELECT id FROM range(0, 600) WHERE id % 17 = " + (k % 17)
            + ") s ON t.id = s.id"
            + " WHEN MATCHED AND t.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = concat(t.v, '-m"
            + k + "')";
    };
  }

  @Test
  void deletesUpdatesAndMergesCommittedBeforeEachBinCommitAreCarriedOntoTheNewFiles()
      throws Exception {
    DeltaTable table = copy("events");
    DeltaTable twin = copy("twin");
    long before = table.latest().getVersion();
    AtomicInteger calls = new AtomicInteger();
    List<String> ran = new ArrayList<>();
    // a MERGE (deletes and updates) before the first bin commits, an UPDATE before the second; the
    // DELETEs are the other tests'
    Runnable writer = () -> {
      String s = statement(calls.getAndIncrement() == 0 ? 2 : 1);
      run(table, s);
      ran.add(s);
    };

    CompactionResult result = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()),
        Clock.systemUTC(),
        DeltaCompactor.Seam.beforeCommit(writer));

    assertThat(result.failedBins()).isEmpty();
    assertThat(result.committedVersions())
        .hasSize(result.plan().bins().size())
        .hasSizeGreaterThan(1);
    ran.forEach(s -> run(twin, s));
    assertThat(DeltaSpark.rows(table.localRoot()))
        .isEqualTo(DeltaSpark.rows(twin.localRoot()))
        .hasSizeLessThan(DeltaSpark.rows(table.localRoot(), before).size());
    for (long v : result.committedVersions()) {
      assertThat(LogEntries.adds(table.localRoot(), v))
          .as("version %d: our new files carry the writer's deletion vectors, inline", v)
          .anyMatch(a -> a.has("deletionVector")
              && a.get("deletionVector").get("storageType").asText().equals("i")
              && a.get("stats").asText().contains("\"tightBounds\":false"))
          .allMatch(a -> !a.get("dataChange").asBoolean());
      assertThat(LogEntries.removes(table.localRoot(), v))
          .as("the re-added inputs are removed with the deletion vector they hold now")
          .anyMatch(r -> r.has("deletionVector"))
          .allMatch(r -> !r.get("dataChange").asBoolean());
    }
    // delta-spark builds on the carried vectors: another DELETE grows them on the compacted files
    run(table, "DELETE FROM $T WHERE id % 19 = 3");
    run(twin, "DELETE FROM $T WHERE id % 19 = 3");
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(DeltaSpark.rows(twin.localRoot()));
  }

  @Test
  void aWriterRunningThroughoutTheCompactionLosesNoDeleteAndEveryBinCommits() throws Exception {
    DeltaTable table = copy("events");
    DeltaTable twin = copy("twin");
    List<String> committed = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    Semaphore landed = new Semaphore(0);
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      for (int k = 0; !stop.get() && k < 40; k++) {
        // a CDC job retries a statement that lost to a concurrent commit (ours included)
        for (int attempt = 0; attempt < 5; attempt++) {
          try {
            run(table, statement(k));
            committed.add(statement(k));
            break;
          } catch (RuntimeException conflict) {
            assertThat(conflict.getClass().getName() + conflict.getMessage())
                .containsIgnoringCase("concurrent");
          }
        }
        landed.release();
      }
    });
    // each bin's commit waits for a writer commit after it was written: every bin meets one
    Runnable afterAWriterCommit = () -> {
      try {
        landed.drainPermits();
        assertThat(landed.tryAcquire(60, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    };

    CompactionResult result;
    try {
      result = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          DeltaCompactor.Seam.beforeCommit(afterAWriterCommit));
    } finally {
      stop.set(true);
      writer.get(120, TimeUnit.SECONDS);
    }

    assertThat(result.failedBins()).isEmpty();
    assertThat(result.committedVersions()).hasSize(result.plan().bins().size());
    assertThat(committed).isNotEmpty();
    committed.forEach(s -> run(twin, s));
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(DeltaSpark.rows(twin.localRoot()));
    List<JsonNode> ourAdds = new ArrayList<>();
    for (long v : result.committedVersions()) {
      ourAdds.addAll(LogEntries.adds(table.localRoot(), v));
    }
    assertThat(ourAdds)
        .as("the writer's deletes were carried onto our new files")
        .anyMatch(a -> a.has("deletionVector"));
  }

  @Test
  void aFalsifiedTranslationIsRefusedAndTheTableKeepsTheWritersRows() throws Exception {
    Map<String, UnaryOperator<long[]>> faults = new LinkedHashMap<>();
    faults.put("a delete lost", p -> Arrays.copyOf(p, p.length - 1));
    // A kept row's position: the smallest not deleted (max + 1 may lie past the file's end).
    UnaryOperator<long[]> keptRow = p -> new long[] {
      LongStream.iterate(0, i -> i + 1)
          .filter(i -> Arrays.stream(p).noneMatch(d -> d == i))
          .findFirst()
          .orElseThrow()
    };
    faults.put("a delete applied twice (to a second row)", p -> {
      long[] out = Arrays.copyOf(p, p.length + 1);
      out[p.length] = keptRow.apply(p)[0];
      return out;
    });
    faults.put("a delete applied to the wrong row", p -> {
      long[] out = p.clone();
      out[0] = keptRow.apply(p)[0];
      return out;
    });
    faults.put("a position past the file's last row", p -> {
      long[] out = Arrays.copyOf(p, p.length + 1);
      out[p.length] = Arrays.stream(p).max().orElseThrow() + 1_000_000;
      return out;
    });
    for (var fault : faults.entrySet()) {
      DeltaTable table =
          copy("falsified-" + faults.keySet().stream().toList().indexOf(fault.getKey()));
      long before = table.latest().getVersion();
      List<String> rowsBefore = DeltaSpark.rows(table.localRoot());
      AtomicBoolean done = new AtomicBoolean();
      Runnable deleteOnce = () -> {
        if (!done.getAndSet(true)) {
          run(table, "DELETE FROM $T WHERE id % 5 = 1");
        }
      };
      Function<CarriedVectors.Translation, CarriedVectors.Translation> falsify = t -> {
        Map<String, long[]> positions = new LinkedHashMap<>(t.positions());
        var first = positions.keySet().iterator().next();
        positions.put(first, fault.getValue().apply(positions.get(first)));
        return new CarriedVectors.Translation(positions);
      };

      CompactionResult result = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          DeltaCompactor.Seam.beforeCommit(deleteOnce).translationFault(falsify::apply));

      assertThat(result.failedBins())
          .as(fault.getKey())
          .isNotEmpty()
          .allMatch(m -> m.contains("could not be carried onto the new files")
              && m.contains("not exactly the"));
      assertThat(result.committedVersions()).as(fault.getKey()).isEmpty();
      assertThat(table.latest().getVersion()).as("only the writer's DELETE").isEqualTo(before + 1);
      assertThat(DeltaSpark.rows(table.localRoot()))
          .as(fault.getKey())
          .isEqualTo(rowsBefore.stream()
              .filter(r -> Long.parseLong(r.substring(1, r.indexOf(','))) % 5 != 1)
              .toList());
    }
  }

  /**
   * A writer's commit lands after a bin loaded the newest version and carried its deletes, before
   * the bin's commit: Kernel (no retry of its own, it would rebase past a change we never checked)
   * reports the lost race, and the bin reads the newest version again, carries both changes and
   * commits, instead of failing.
   */
  @Test
  void aCommitLostToAWriterBetweenOurLookAndOurCommitIsRetriedAndCarriesBothChanges()
      throws Exception {
    DeltaTable table = copy("raced");
    DeltaTable twin = copy("raced-twin");
    List<String> ran = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    Runnable first = () -> {
      if (calls.getAndIncrement() == 0) {
        run(table, statement(0));
        ran.add(statement(0));
      }
    };
    AtomicBoolean raced = new AtomicBoolean();
    UnaryOperator<CarriedVectors.Translation> race = t -> {
      // inside the commit attempt, after its look at the newest version: a writer commits first
      if (!raced.getAndSet(true)) {
        run(table, statement(1));
        ran.add(statement(1));
      }
      return t;
    };

    CompactionResult result = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()),
        Clock.systemUTC(),
        DeltaCompactor.Seam.beforeCommit(first).translationFault(race));

    assertThat(raced).isTrue();
    assertThat(result.failedBins()).isEmpty();
    assertThat(result.committedVersions()).hasSize(result.plan().bins().size());
    ran.forEach(s -> run(twin, s));
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(DeltaSpark.rows(twin.localRoot()));
  }
}
