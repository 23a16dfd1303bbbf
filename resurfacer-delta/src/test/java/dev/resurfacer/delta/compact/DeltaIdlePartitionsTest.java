package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code min-partition-idle} on Delta: a partition a delta-spark DELETE changed within the idle time
 * is left for a later run, the others are compacted, and the table's rows do not change.
 */
class DeltaIdlePartitionsTest {
  @TempDir
  Path dir;

  @Test
  void aPartitionAWriterChangedRecentlyIsLeftAndTheIdleOneIsCompacted() throws Exception {
    Path root = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    // the table's history two hours old, then one DELETE now in partition 'a b'
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofHours(2)));
    try (Stream<Path> s = Files.list(root.resolve("_delta_log"))) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, old);
      }
    }
    DeltaSpark.sql("DELETE FROM " + DeltaSpark.table(root) + " WHERE part = 'a b' AND id = 3");
    DeltaTable table = DeltaTables.open("raw.events", root.toString(), dir);
    var rows = DeltaSpark.rows(root);

    IdlePartitions idle =
        IdlePartitions.of(table, table.latest(), Duration.ofHours(1), System.currentTimeMillis());
    assertThat(idle.busy()).containsExactly(Map.of("part", "a b"));

    CompactionOptions options = CompactionOptions.defaults().minPartitionIdle(Duration.ofHours(1));
    CompactionPlan plan = DeltaCompactor.plan(table, options).preview();
    assertThat(plan.bins())
        .isNotEmpty()
        .allSatisfy(b -> assertThat(b.partition()).isEqualTo(Map.of("part", "x%y")));
    assertThat(plan.skipped())
        .anyMatch(
            s -> s.contains(
                "in 1 partition(s) a writer changed within min-partition-idle (1h), left for a later run"));
    assertThat(
            DeltaCompactor.plan(table, CompactionOptions.defaults()).preview().bins())
        .as("without the option both partitions")
        .anyMatch(b -> b.partition().equals(Map.of("part", "a b")));

    CompactionResult result =
        DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC());
    assertThat(result.failedBins()).isEmpty();
    assertThat(result.committedVersions()).hasSize(plan.bins().size());
    assertThat(DeltaSpark.rows(root)).isEqualTo(rows);
    // our own OPTIMIZE commits change no row: the compacted partition stays idle
    assertThat(IdlePartitions.of(
                table, table.latest(), Duration.ofHours(1), System.currentTimeMillis())
            .busy())
        .containsExactly(Map.of("part", "a b"));
  }
}
