package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionPlan;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.compact.PlannedCompaction;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.RunReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the library tells a {@link Progress}: every unit it announced, no more, and every task closed. */
class ProgressReportingTest {
  @TempDir
  Path dir;

  /** Records every task: what it announced and what it was told. */
  static final class Recorder implements Progress {
    final List<Task> tasks = new CopyOnWriteArrayList<>();

    @Override
    public Task start(String name, String unit, long total, long totalBytes) {
      Task t = new Task(name, unit, total, totalBytes);
      tasks.add(t);
      return t;
    }

    Task named(String prefix) {
      return tasks.stream().filter(t -> t.name.startsWith(prefix)).findFirst().orElseThrow();
    }

    static final class Task implements Progress.Task {
      final String name;
      final String unit;
      final long total;
      final long totalBytes;
      final AtomicLong units = new AtomicLong();
      final AtomicLong bytes = new AtomicLong();
      volatile boolean closed;

      Task(String name, String unit, long total, long totalBytes) {
        this.name = name;
        this.unit = unit;
        this.total = total;
        this.totalBytes = totalBytes;
      }

      @Override
      public void advance(long n, long b) {
        units.addAndGet(n);
        bytes.addAndGet(b);
      }

      @Override
      public void note(String text) {}

      @Override
      public void close() {
        closed = true;
      }
    }
  }

  @Test
  void compactionReportsEveryPlannedFileAndByte() {
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"))) {
      Table table = Fleet.smallFiles(catalog, "raw", "a", 6);
      CompactionOptions options = CompactionOptions.defaults().withOption("min-input-files", "2");
      PlannedCompaction planned = Compaction.plan(table, options);
      CompactionPlan plan = planned.readout();
      Recorder progress = new Recorder();

      CompactionResult r = Compaction.execute(planned, progress, line -> {});

      assertThat(r.allCommitted()).isTrue();
      Recorder.Task task = progress.named("compact ");
      assertThat(task.total).isEqualTo(plan.filesToRewrite()).isEqualTo(6);
      assertThat(task.totalBytes).isEqualTo(plan.bytesToRewrite());
      assertThat(task.units.get()).isEqualTo(task.total);
      assertThat(task.bytes.get()).isEqualTo(task.totalBytes);
      assertThat(task.closed).isTrue();
    }
  }

  @Test
  void expiryCountsTheFilesItDeletes() {
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"))) {
      Table table = Fleet.smallFiles(catalog, "raw", "a", 4);
      table
          .newDelete()
          .deleteFromRowFilter(org.apache.iceberg.expressions.Expressions.alwaysTrue())
          .commit();
      Recorder progress = new Recorder();

      ExpireResult r = SnapshotExpiry.execute(
          SnapshotExpiry.plan(
              "raw.a", table, new ExpireOptions(Duration.ZERO, 1, List.of(), false)),
          progress);

      Recorder.Task task = progress.named("expire raw.a");
      assertThat(r.files()).isPositive();
      assertThat(task.units.get()).isEqualTo(task.total).isEqualTo(r.files());
      assertThat(task.bytes.get()).isEqualTo(r.bytes());
      assertThat(task.closed).isTrue();
    }
  }

  @Test
  void maintainCountsEveryOperationOfEveryTable() {
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"))) {
      Fleet.smallFiles(catalog, "raw", "a", 3);
      Fleet.smallFiles(catalog, "raw", "b", 3);
    }
    Recorder progress = new Recorder();
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))
        .progress(progress)) {
      RunReport report = r.run(
          MaintenancePlan.of(Maintain.namespace("raw")
              .compact(Map.of("min-input-files", "2"))
              .removeOrphans(Duration.ZERO)),
          Mode.COMMIT);
      assertThat(report.exitCode()).isZero();
    }
    Recorder.Task run = progress.named("maintain lake (2 tables)");
    assertThat(run.total).isEqualTo(4);
    assertThat(run.units.get()).isEqualTo(4);
    assertThat(run.closed).isTrue();
    // each operation's own work reaches the same listener
    assertThat(progress.named("compact lake.raw.a").units.get()).isEqualTo(3);
    assertThat(progress.named("compact lake.raw.b").units.get()).isEqualTo(3);
    List<Recorder.Task> listings = progress.tasks.stream()
        .filter(t -> t.name.startsWith("remove-orphans") && t.name.endsWith(": list"))
        .toList();
    assertThat(listings).hasSize(2).allMatch(t -> t.units.get() > 0 && t.bytes.get() > 0);
    assertThat(progress.tasks).allMatch(t -> t.closed);
  }
}
