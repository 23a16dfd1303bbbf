package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two loops of compaction on one table (each run taking the table lease, as two serve processes or a
 * serve and a cron maintain would) beside a writer of small appends and equality deletes. Before
 * {@code NewDeletesFence} a row the writer deleted came back in about one run in three: Iceberg core
 * dropped an equality delete committed during a rewrite (see docs/safety.md, compact fence 7); the
 * deterministic test of that is {@code CompactionSafetyTest.anEqualityDeleteThenAnAppendDuringTheRewriteAreBothKept}.
 * On a mismatch the table's snapshots (sequence numbers, summaries, manifest lists) are printed.
 * About two minutes, so off by default: {@code -Dserve.race=true}.
 */
class EqualityDeleteRaceTest {
  @TempDir
  Path dir;

  @Test
  @EnabledIfSystemProperty(
      named = "serve.race",
      matches = "true",
      disabledReason = "about two minutes of concurrent commits; -Dserve.race=true")
  void twoCompactionLoopsBesideAnEqualityDeleteWriterLoseNoDelete() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Orders.create(catalog, "raw", "t", 2);
      StreamingWriter writer = new StreamingWriter(catalog, List.of("raw.t"), 3L);
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> loops = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", lake));
        Thread t = new Thread(() -> {
          while (!stop.get()) {
            r.run(
                MaintenancePlan.of(Maintain.table("raw.t").compact(Map.of("min-input-files", "2"))),
                Mode.COMMIT);
          }
          r.close();
        });
        t.start();
        loops.add(t);
      }
      try {
        for (int step = 1; step <= 200; step++) {
          writer.step();
          if (step % 5 == 0) {
            if (!writer.actual("raw.t").equals(writer.expected("raw.t"))) {
              dump(catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.parse("raw.t")));
            }
            assertThat(writer.actual("raw.t"))
                .as("after %d commits", step)
                .isEqualTo(writer.expected("raw.t"));
          }
        }
      } finally {
        stop.set(true);
        for (Thread t : loops) {
          t.join();
        }
      }
    }
  }

  /** What a failure needs to be understood: every snapshot, whether it is in the current history, and its manifest list. */
  private static void dump(org.apache.iceberg.Table table) {
    var ops = ((org.apache.iceberg.HasTableOperations) table).operations();
    var meta = ops.current();
    java.util.Set<Long> ancestry = new java.util.HashSet<>();
    for (var s : org.apache.iceberg.util.SnapshotUtil.currentAncestors(table)) {
      ancestry.add(s.snapshotId());
    }
    System.err.println(
        "DUMP current=" + meta.metadataFileLocation() + " lastSeq=" + meta.lastSequenceNumber());
    for (var e : meta.previousFiles()) {
      System.err.println("DUMP log " + e.file());
    }
    for (var s : meta.snapshots()) {
      boolean listExists =
          java.nio.file.Files.exists(java.nio.file.Path.of(s.manifestListLocation()));
      System.err.println("DUMP snap " + s.snapshotId() + " parent=" + s.parentId() + " seq="
          + s.sequenceNumber() + " op=" + s.operation()
          + " inAncestry=" + ancestry.contains(s.snapshotId()) + " listExists=" + listExists
          + " list=" + s.manifestListLocation()
          + " summary=" + s.summary());
    }
    System.err.println("DUMP refs " + meta.refs());
  }
}
