package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.s3.S3Bucket;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.delta.table.S3Settings;
import dev.resurfacer.maintain.TableSignals;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's signals of a Delta table read from {@code s3://} (s3proxy) are those of the same table on local disk. */
class DeltaSignalsS3Test {
  @TempDir
  Path dir;

  @Test
  void signalsOnS3EqualThoseOfTheSameTableOnDisk() throws Exception {
    Path source = TestTables.sharedPartitionedWithDeletes();
    try (S3Bucket s3 = new S3Bucket("signals")) {
      S3Settings settings = S3Settings.of(s3.properties(), "test");
      DeltaFormat engine = new DeltaFormat("deltas", Map.of(), dir, settings, Clock.systemUTC());
      String location = s3.upload(source, "raw/events");
      try (DeltaTable local = DeltaTables.open("local", source.toString(), dir);
          DeltaTable remote = DeltaTables.open("raw.events", location, dir, settings)) {
        assertThat(remote.storage()).isInstanceOf(ObjectStorage.class);
        TableSignals onDisk = engine.signals(local, null);
        TableSignals onS3 = engine.signals(remote, null);
        assertThat(onDisk.dataFiles()).isPositive();
        assertThat(onDisk.deleteFiles()).as("the table has deletion vectors").isPositive();
        assertThat(onS3.dataFiles()).isEqualTo(onDisk.dataFiles());
        assertThat(onS3.smallDataFiles()).isEqualTo(onDisk.smallDataFiles());
        assertThat(onS3.deleteFiles()).isEqualTo(onDisk.deleteFiles());
        assertThat(onS3.dataRecords()).isEqualTo(onDisk.dataRecords());
        assertThat(onS3.deletedRecords()).isEqualTo(onDisk.deletedRecords());
        assertThat(onS3.snapshots()).isEqualTo(onDisk.snapshots());
        assertThat(onS3.metadataFiles()).isEqualTo(onDisk.metadataFiles());
        assertThat(onS3.commitsSince()).isEqualTo(onDisk.commitsSince()).isPositive();
      }
    }
  }
}
