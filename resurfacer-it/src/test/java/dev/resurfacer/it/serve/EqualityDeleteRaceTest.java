package dev.resurfacer.it.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.maintain.Resurfacer;
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
 * The reproducer of the race ServeUnderLoadTest found, without serve: two loops of compaction on one
 * table (each run taking the table lease, as two serve processes or a serve and a cron maintain
 * would) beside a writer of small appends and equality deletes. A row the writer deleted comes back
 * within a few dozen commits. Off by default until fixed: {@code -Dserve.race=true}.
 */
class EqualityDeleteRaceTest {
  @TempDir Path dir;

  @Test
  @EnabledIfSystemProperty(named = "serve.race", matches = "true", disabledReason = "reproduces an open data-loss race")
  void twoCompactionLoopsBesideAnEqualityDeleteWriterLoseNoDelete() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Orders.create(catalog, "raw", "t", 2);
      StreamingWriter writer = new StreamingWriter(catalog, List.of("raw.t"), 3L);
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> loops = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Resurfacer r = Resurfacer.connect(SqliteCatalogs.create("lake", lake));
        Thread t = new Thread(() -> {
          while (!stop.get()) {
            r.run(MaintenancePlan.of(Maintain.table("raw.t").compact(Map.of("min-input-files", "2"))), Mode.COMMIT);
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
            assertThat(writer.actual("raw.t")).as("after %d commits", step).isEqualTo(writer.expected("raw.t"));
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
}
