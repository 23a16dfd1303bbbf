package dev.resurfacer.delta.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.storage.StoredFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which checkpoints log cleanup may treat as whole: deleting the commits before a broken one loses the table. */
class CheckpointSetsTest {
  @Test
  void partsOfTwoMultiPartCheckpointSetsAreNotOneWholeCheckpoint() {
    String log = "/wh/t/_delta_log/";
    LogFile a = checkpoint(log + "00000000000000000010.checkpoint.0000000001.0000000002.parquet");
    LogFile b = checkpoint(log + "00000000000000000010.checkpoint.0000000002.0000000003.parquet");
    assertThat(LogCleanup.completeCheckpoints(List.of(a, b))).isEmpty();
    LogFile c = checkpoint(log + "00000000000000000010.checkpoint.0000000002.0000000002.parquet");
    assertThat(LogCleanup.completeCheckpoints(List.of(a, b, c))).containsExactly(10L);
  }

  private static LogFile checkpoint(String path) {
    return new LogFile(new StoredFile("s3", "lake", path), LogFile.Kind.CHECKPOINT, 10, 1, 0);
  }
}
