package dev.resurfacer.delta.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogMaintenanceTest {
  @TempDir
  Path dir;

  private DeltaTable copy(String name) throws Exception {
    return DeltaTables.open(
        "raw.events",
        TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve(name))
            .toString(),
        dir);
  }

  @Test
  void kernelCheckpointsKeepTheTombstonesOfLaterCommitsAndAreRefusedWhenTombstonesPrecedeOne()
      throws Exception {
    DeltaTable table = copy("events");
    List<String> before = DeltaSpark.rows(table.localRoot());

    Checkpointer.Outcome outcome =
        Checkpointer.execute(Checkpointer.plan(table, Clock.systemUTC()));

    assertThat(outcome.written()).isTrue();
    LogFile checkpoint =
        DeltaLogFiles.list(table).latestCheckpoint(Long.MAX_VALUE).orElseThrow();
    assertThat(checkpoint.version()).isEqualTo(9);
    java.util.Set<String> removes = new java.util.TreeSet<>();
    StructType schema =
        new StructType().add("remove", new StructType().add("path", StringType.STRING));
    try (CloseableIterator<FileReadResult> r = table
        .engine()
        .getParquetHandler()
        .readParquetFiles(
            KernelIterators.of(List.of(FileStatus.of(
                table.storage().kernelPath(checkpoint.path()),
                checkpoint.size(),
                checkpoint.modificationTime()))),
            schema,
            Optional.empty())) {
      while (r.hasNext()) {
        ColumnarBatch b = r.next().getData();
        for (int i = 0; i < b.getSize(); i++) {
          if (!b.getColumnVector(0).isNullAt(i)) {
            removes.add(b.getColumnVector(0).getChild(0).getString(i));
          }
        }
      }
    }
    java.util.Set<String> tombstoned = new java.util.TreeSet<>();
    Tombstones.read(table, DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT))
        .forEach(t -> tombstoned.add(t.logPath()));
    assertThat(removes)
        .as("every unexpired tombstone is in Kernel's checkpoint")
        .isEqualTo(tombstoned);
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(before);

    // version 10 (Spark checkpoints it: every fifth commit), version 11 without a checkpoint
    DeltaSpark.sql("ALTER TABLE " + DeltaSpark.table(table.localRoot())
        + " SET TBLPROPERTIES ('resurfacer.test' = '1')");
    DeltaSpark.sql("ALTER TABLE " + DeltaSpark.table(table.localRoot())
        + " SET TBLPROPERTIES ('resurfacer.test' = '2')");
    assertThatThrownBy(() -> Checkpointer.execute(Checkpointer.plan(table, Clock.systemUTC())))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("precede the checkpoint of version 10");
    assertThat(DeltaLogFiles.list(table)
            .latestCheckpoint(Long.MAX_VALUE)
            .orElseThrow()
            .version())
        .isEqualTo(10);
  }

  @Test
  void checkpointOfATableWithoutYoungTombstonesIsWrittenAndReadable() throws Exception {
    Path t = dir.resolve("kernel");
    var engine = io.delta.kernel.defaults.engine.DefaultEngine.create(DeltaTables.hadoopConf());
    TableManager.buildCreateTableTransaction(
            "file:" + t, new StructType().add("id", LongType.LONG), "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    DeltaTable table = DeltaTables.open("k", t.toString(), dir);

    Checkpointer.Outcome outcome =
        Checkpointer.execute(Checkpointer.plan(table, Clock.systemUTC()));

    assertThat(outcome.written()).isTrue();
    assertThat(DeltaLogFiles.list(table).latestCheckpoint(0)).isPresent();
    assertThat(Checkpointer.execute(Checkpointer.plan(table, Clock.systemUTC())).written())
        .as("a second run finds the checkpoint")
        .isFalse();
    assertThat(DeltaSpark.rows(t)).isEmpty();
  }

  @Test
  void cleanupRemovesOnlyEntriesBeforeAnOldCheckpointAndEveryRetainedVersionStaysReadable()
      throws Exception {
    DeltaTable table = copy("events");
    List<String> latest = DeltaSpark.rows(table.localRoot());
    int filesAtFive =
        dev.resurfacer.delta.scan.LiveFiles.of(table, table.atVersion(5)).size();
    ageLog(table, 5, Duration.ofDays(40));

    LogCleanup.Plan plan = LogCleanup.plan(table, Optional.empty(), Clock.systemUTC());

    assertThat(plan.keepFromVersion()).isEqualTo(5);
    assertThat(plan.deletions()).isNotEmpty().allMatch(f -> f.version() < 5);
    assertThat(plan.deletions().stream()
            .filter(f -> f.kind() == LogFile.Kind.COMMIT)
            .map(LogFile::version))
        .containsExactly(0L, 1L, 2L, 3L, 4L);
    LogCleanup.execute(table, plan);

    DeltaLogFiles after = DeltaLogFiles.list(table);
    assertThat(after.oldestCommitVersion().getAsLong()).isEqualTo(5);
    assertThat(after.latestCheckpoint(9).orElseThrow().version()).isEqualTo(5);
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(latest);
    // Spark refuses time travel past the file retention by commit age; Kernel still rebuilds
    // version 5 from its checkpoint
    assertThat(dev.resurfacer.delta.scan.LiveFiles.of(table, table.atVersion(5)))
        .hasSize(filesAtFive);
    assertThat(table.latest().getVersion()).isEqualTo(9);
  }

  @Test
  void cleanupKeepsEverythingWhenACommitBeforeTheCheckpointIsYoung() throws Exception {
    DeltaTable table = copy("events");
    ageLog(table, 3, Duration.ofDays(40));
    LogCleanup.Plan plan = LogCleanup.plan(table, Optional.empty(), Clock.systemUTC());
    assertThat(plan.keepFromVersion()).isEqualTo(-1);
    assertThat(plan.deletions()).isEmpty();
  }

  /** Log entries of versions up to {@code through} get a modification time {@code age} ago. */
  private static void ageLog(DeltaTable table, long through, Duration age) throws Exception {
    FileTime t = FileTime.from(Instant.now().minus(age));
    try (Stream<Path> s = Files.list(table.localRoot().resolve("_delta_log"))) {
      for (Path p : s.toList()) {
        String n = p.getFileName().toString();
        if (n.matches("\\d{20}\\..*") && Long.parseLong(n.substring(0, 20)) <= through) {
          Files.setLastModifiedTime(p, t);
        }
      }
    }
  }
}
