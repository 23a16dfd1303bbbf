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
  @TempDir
  Path dir;

  @Test
  void describesTheTableSparkSees() throws Exception {
    Path t = TestTables.sharedPartitionedWithDeletes();
    DeltaTable table = DeltaTables.open("raw.events", t.toString(), dir);

    DeltaHealth h = DeltaDescriber.describe(table, Clock.systemUTC());

    Row detail = DeltaSpark.session()
        .sql("DESCRIBE DETAIL " + DeltaSpark.table(t))
        .collectAsList()
        .get(0);
    assertThat(h.data().dataFiles()).isEqualTo(detail.<Long>getAs("numFiles"));
    assertThat(h.data().dataBytes()).isEqualTo(detail.<Long>getAs("sizeInBytes"));
    assertThat(h.protocol().minReaderVersion())
        .isEqualTo(detail.<Integer>getAs("minReaderVersion"));
    assertThat(h.protocol().minWriterVersion())
        .isEqualTo(detail.<Integer>getAs("minWriterVersion"));
    assertThat(h.protocol().readerFeatures()).contains("deletionVectors");
    assertThat(h.partitionColumns()).containsExactly("part");
    // versions 0..9: create, 6 inserts, delete, update, delete
    assertThat(h.version()).isEqualTo(9);
    long live = DeltaSpark.rows(t).size();
    assertThat(h.data().records() - h.deletionVectors().deletedRows()).isEqualTo(live);
    assertThat(h.deletionVectors().filesWithDeletionVectors()).isPositive();
    assertThat(h.deletionVectors().deletedRowRatio()).isBetween(0.0, 1.0);
    assertThat(h.removals().tombstones()).isPositive();
    assertThat(h.removals().tombstonesInRetention()).isEqualTo(h.removals().tombstones());
    assertThat(h.checkpoints().checkpointVersion()).isEqualTo(5L);
    assertThat(h.checkpoints().commitsSinceCheckpoint()).isEqualTo(4);
    assertThat(h.log().logCommits()).isEqualTo(10);
    assertThat(h.log().logCheckpointFiles()).isEqualTo(1);
    assertThat(h.log().logBytes()).isPositive();
    assertThat(h.data().sizeHistogram().stream()
            .mapToLong(DeltaHealth.SizeBucket::files)
            .sum())
        .isEqualTo(h.data().dataFiles());
    assertThat(h.data().smallDataFiles()).isEqualTo(h.data().dataFiles());
    assertThat(h.retention().deletedFileRetentionMs()).isEqualTo(7L * 24 * 3600 * 1000);
  }
}
