package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The library and the runner on delta-spark tables: one plan, Delta's operations, the lease. */
class DeltaMaintenanceTest {
  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  /** A copy whose removed files and log entries are past retention as soon as they are written. */
  private Path copyWithZeroRetention(String name) throws IOException {
    Path t = TestTables.copy(source, dir.resolve(name));
    DeltaSpark.sql("ALTER TABLE " + DeltaSpark.table(t)
        + " SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 0 hours',"
        + " 'delta.logRetentionDuration' = 'interval 0 hours')");
    TestTables.ageData(t, Duration.ofMinutes(5));
    return t;
  }

  private CatalogConfig catalog(Map<String, String> tables) {
    return new CatalogConfig("deltas", CatalogConfig.DELTA, null, null, Map.of(), Set.of(), tables);
  }

  /** Every file under the table with its size and modification time: what "nothing changed" means on disk. */
  private static Map<String, String> files(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      Map<String, String> out = new TreeMap<>();
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(
            root.relativize(p).toString(),
            Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
      }
      return out;
    }
  }

  @Test
  void aNamespacePlanPreviewsThenCompactsVacuumsCheckpointsAndCleansTheLogOfEveryTable()
      throws Exception {
    Path events = copyWithZeroRetention("events");
    Path clicks = copyWithZeroRetention("clicks");
    Path other = TestTables.copy(source, dir.resolve("other"));
    Map<String, List<String>> rowsBefore = Map.of(
        "raw.events", DeltaSpark.typedRows(events), "raw.sub.clicks", DeltaSpark.typedRows(clicks));
    Map<String, String> otherFiles = files(other);
    var plan = MaintenancePlan.of(
        Maintain.namespace("raw").compact().vacuum().checkpoint().cleanupLog());

    try (var r = DeltaResurfacer.connect(
        catalog(Map.of(
            "raw.events",
            events.toString(),
            "raw.sub.clicks",
            clicks.toString(),
            "web.other",
            other.toString())),
        dir)) {
      Map<String, String> eventsFiles = files(events);
      RunReport preview = r.run(plan, Mode.PREVIEW);
      assertThat(preview.tables())
          .extracting(TableReport::table)
          .containsExactly("raw.events", "raw.sub.clicks");
      for (TableReport t : preview.tables()) {
        assertThat(t.outcome()).as(t.message()).isEqualTo(Outcome.PREVIEWED);
        assertThat(t.operations())
            .extracting(OperationResult::operation)
            .containsExactly("compact", "vacuum", "checkpoint", "cleanup-log");
        assertThat(t.operations().get(0).outcome()).isEqualTo(Outcome.PREVIEWED);
        assertThat(t.before().dataFiles()).isPositive();
      }
      assertThat(files(events)).as("a preview changes nothing").isEqualTo(eventsFiles);

      RunReport commit = r.run(plan, Mode.COMMIT);
      assertThat(commit.exitCode()).isZero();
      for (TableReport t : commit.tables()) {
        assertThat(t.operations())
            .as(t.table() + ": " + t.operations())
            .allMatch(o -> o.outcome() == Outcome.DONE);
        assertThat(t.after().dataFiles()).isLessThan(t.before().dataFiles());
        assertThat(t.after().deleteFiles())
            .as("no deletion vectors after the purge")
            .isZero();
        Path root = t.table().equals("raw.events") ? events : clicks;
        assertThat(DeltaSpark.typedRows(root))
            .as("same rows, same types")
            .isEqualTo(rowsBefore.get(t.table()));
        DeltaTable table = DeltaTables.open(t.table(), root.toString(), dir);
        long version = table.latest().getVersion();
        Set<Path> live = LiveFiles.of(table, table.latest()).stream()
            .map(f -> LocalStorage.path(f.file()))
            .collect(Collectors.toSet());
        try (Stream<Path> s = Files.walk(table.localRealRoot())) {
          assertThat(s.filter(Files::isRegularFile)
                  .filter(p -> p.toString().endsWith(".parquet"))
                  .filter(p -> !p.toString().contains("_delta_log"))
                  .collect(Collectors.toSet()))
              .as("vacuum left exactly the live files")
              .isEqualTo(live);
        }
        assertThat(table
                .localRoot()
                .resolve("_delta_log")
                .resolve(String.format("%020d.checkpoint.parquet", version)))
            .exists();
        try (Stream<Path> s = Files.list(table.localRoot().resolve("_delta_log"))) {
          assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")))
              .as("cleanup-log kept only what follows the new checkpoint")
              .allMatch(n -> Long.parseLong(n.substring(0, 20)) >= version);
        }
        try (Stream<Path> s = Files.list(root.resolve(DeltaLease.DIRECTORY))) {
          assertThat(s.filter(p -> p.getFileName().toString().startsWith("lease-")))
              .as("the lease was released")
              .isEmpty();
        }
      }
    }
    assertThat(files(other)).as("a table outside the namespace is untouched").isEqualTo(otherFiles);
  }

  @Test
  void aHeldLeaseSkipsTheTableAndAnExpiredOneIsTakenOver() throws Exception {
    Path events = TestTables.copy(source, dir.resolve("events"));
    var plan = MaintenancePlan.of(Maintain.table("raw.events").compact());
    try (var r = DeltaResurfacer.connect(catalog(Map.of("raw.events", events.toString())), dir)) {
      Map<String, String> before = files(events);
      try (DeltaLease held = DeltaLease.acquire(
          storage(events), "someone-else", Duration.ofHours(1), Clock.systemUTC())) {
        RunReport skipped = r.run(plan, Mode.COMMIT);
        assertThat(skipped.tables().get(0).outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(skipped.tables().get(0).message()).contains("someone-else");
        Map<String, String> now = files(events);
        now.keySet().removeIf(k -> k.startsWith(DeltaLease.DIRECTORY));
        assertThat(now).isEqualTo(before);
      }
      DeltaLease.acquire(
          storage(events),
          "crashed-run",
          Duration.ofSeconds(-1),
          Clock.systemUTC()); // never released
      RunReport done = r.run(plan, Mode.COMMIT);
      assertThat(done.tables().get(0).outcome())
          .as(done.tables().get(0).message() + "")
          .isEqualTo(Outcome.DONE);
    }
  }

  @Test
  void ofRunsRacingForOneLeaseExactlyOneWins() throws Exception {
    Path root = Files.createDirectories(dir.resolve("t"));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int round = 0; round < 20; round++) {
        CyclicBarrier start = new CyclicBarrier(3);
        List<Future<DeltaLease>> tries = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          String owner = "run-" + i;
          tries.add(pool.submit(() -> {
            start.await();
            try {
              return DeltaLease.acquire(
                  storage(root), owner, Duration.ofHours(1), Clock.systemUTC());
            } catch (dev.resurfacer.maintain.LeaseHeld e) {
              return null;
            }
          }));
        }
        List<DeltaLease> won = new ArrayList<>();
        for (Future<DeltaLease> f : tries) {
          if (f.get() != null) {
            won.add(f.get());
          }
        }
        assertThat(won).as("round " + round).hasSize(1);
        won.get(0).close();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anOperationDeltaDoesNotHaveIsAUsageErrorBeforeAnythingRuns() throws Exception {
    Path events = TestTables.copy(source, dir.resolve("events"));
    try (var r = DeltaResurfacer.connect(catalog(Map.of("raw.events", events.toString())), dir)) {
      assertThat(r.supports(new dev.resurfacer.maintain.Vacuum(null, false))).isTrue();
      assertThat(r.supports(dev.resurfacer.maintain.ExpireSnapshots.tableDefaults()))
          .isFalse();
      assertThatThrownBy(() -> r.run(
              MaintenancePlan.of(Maintain.table("raw.events").vacuum().expireSnapshots()),
              Mode.COMMIT))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("'expire'");
      assertThatThrownBy(
              () -> r.run(MaintenancePlan.of(Maintain.namespace("nope").vacuum()), Mode.PREVIEW))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("namespace nope");
    }
  }

  private static LocalStorage storage(Path dir) throws java.io.IOException {
    return LocalStorage.open(dir, dir.toRealPath());
  }
}
