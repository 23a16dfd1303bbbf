package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.progress.Progress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve's {@code small-files} signal on a Delta table counts the small files a bin-pack would take, as on
 * Iceberg: after a compaction leaves one file per partition the trigger has nothing left to fire for,
 * while every small file still counts when {@code min-input-files} is 1.
 */
class DeltaSmallFilesSignalTest {
  @TempDir
  Path dir;

  @Test
  void smallFilesCountOnlyWhereABinPackWouldTakeThem() throws Exception {
    Path root = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    DeltaFormat format = new DeltaFormat("deltas", Map.of(), dir, null, Clock.systemUTC());
    try (DeltaTable table = DeltaTables.open("raw.events", root.toString(), dir)) {
      Map<Map<String, String>, Long> perPartition = LiveFiles.of(table, table.latest()).stream()
          .collect(Collectors.groupingBy(LiveFile::partitionValues, Collectors.counting()));
      assertThat(perPartition.values())
          .as("the test table has partitions of several small files")
          .anyMatch(n -> n > 1);
      long all = perPartition.values().stream().mapToLong(Long::longValue).sum();
      long inPartitionsOfThreeOrMore = perPartition.values().stream()
          .filter(n -> n >= 3)
          .mapToLong(Long::longValue)
          .sum();

      assertThat(format.signals(table, null).smallDataFiles()).isEqualTo(all);
      assertThat(format.signals(table, null, 1).smallDataFiles()).isEqualTo(all);
      assertThat(format.signals(table, null, 3).smallDataFiles())
          .isEqualTo(inPartitionsOfThreeOrMore);

      DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          Progress.NONE);
      Map<Map<String, String>, Long> after = LiveFiles.of(table, table.latest()).stream()
          .collect(Collectors.groupingBy(LiveFile::partitionValues, Collectors.counting()));
      assertThat(after.values())
          .as("one file per partition after the compaction")
          .allMatch(n -> n == 1);
      assertThat(format.signals(table, null, 2).smallDataFiles())
          .as("nothing a bin-pack would take")
          .isZero();
      assertThat(format.signals(table, null, 1).smallDataFiles()).isEqualTo(after.size());
    }
  }
}
