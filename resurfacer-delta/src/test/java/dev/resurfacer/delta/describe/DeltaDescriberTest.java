package dev.resurfacer.delta.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaDescriberTest {
  @TempDir Path dir;

  @Test
  void describesTheTableSparkSees() throws Exception {
    Path t = TestTables.sharedPartitionedWithDeletes();
    DeltaTable table = DeltaTables.open("raw.events", t.toString(), dir);

    DeltaHealth h = DeltaDescriber.describe(table, Clock.systemUTC());

    Row detail = DeltaSpark.session().sql("DESCRIBE DETAIL " + DeltaSpark.table(t)).collectAsList().get(0);
    assertThat(h.dataFiles()).isEqualTo(detail.<Long>getAs("numFiles"));
    assertThat(h.dataBytes()).isEqualTo(detail.<Long>getAs("sizeInBytes"));
    assertThat(h.protocol().minReaderVersion()).isEqualTo(detail.<Integer>getAs("minReaderVersion"));
    assertThat(h.protocol().minWriterVersion()).isEqualTo(detail.<Integer>getAs("minWriterVersion"));
    assertThat(h.protocol().readerFeatures()).contains("deletionVectors");
    assertThat(h.partitionColumns()).containsExactly("part");
    // versions 0..9: create, 6 inserts, delete, update, delete
    assertThat(h.version()).isEqualTo(9);
    long live = DeltaSpark.rows(t).size();
    assertThat(h.records() - h.deletedRows()).isEqualTo(live);
    assertThat(h.filesWithDeletionVectors()).isPositive();
    assertThat(h.deletedRowRatio()).isBetween(0.0, 1.0);
    assertThat(h.tombstones()).isPositive();
    assertThat(h.tombstonesInRetention()).isEqualTo(h.tombstones());
    assertThat(h.checkpointVersion()).isEqualTo(5L);
    assertThat(h.commitsSinceCheckpoint()).isEqualTo(4);
    assertThat(h.logCommits()).isEqualTo(10);
    assertThat(h.logCheckpointFiles()).isEqualTo(1);
    assertThat(h.logBytes()).isPositive();
    assertThat(h.sizeHistogram().stream().mapToLong(DeltaHealth.SizeBucket::files).sum()).isEqualTo(h.dataFiles());
    assertThat(h.smallDataFiles()).isEqualTo(h.dataFiles());
    assertThat(h.retention().deletedFileRetentionMs()).isEqualTo(7L * 24 * 3600 * 1000);
  }
}
