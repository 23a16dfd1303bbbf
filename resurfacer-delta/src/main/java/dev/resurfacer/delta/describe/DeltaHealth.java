package dev.resurfacer.delta.describe;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;

/**
 * What {@code describe} reports for a Delta table. Byte counts are bytes, ages milliseconds. Each
 * unwrapped part is written into the one flat JSON object this output has always been, in this order.
 */
public record DeltaHealth(
    String table,
    String location,
    String format,
    long version,
    long lastCommitAgeMs,
    Protocol protocol,
    List<String> partitionColumns,
    @JsonUnwrapped DataFiles data,
    @JsonUnwrapped DeletionVectors deletionVectors,
    @JsonUnwrapped Tombstones removals,
    @JsonUnwrapped Checkpoints checkpoints,
    @JsonUnwrapped Log log,
    Retention retention,
    Map<String, String> properties)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return DeltaHealthText.render(this);
  }

  /** @param records rows before deletion vectors; null when some file has no {@code numRecords} stat */
  public record DataFiles(
      long dataFiles,
      long dataBytes,
      Long records,
      long averageDataFileBytes,
      long targetFileSizeBytes,
      long smallDataFiles,
      List<SizeBucket> sizeHistogram) {}

  /** @param deletedRowRatio rows deleted by deletion vectors over the records; null when records are unknown */
  public record DeletionVectors(
      long filesWithDeletionVectors, long deletedRows, Double deletedRowRatio) {}

  /**
   * @param tombstones remove actions in the commits still in the log
   * @param tombstonesInRetention of those, the ones newer than the deleted-file retention (their files are kept for time travel)
   */
  public record Tombstones(long tombstones, long tombstonesInRetention) {}

  /** @param checkpointVersion the newest checkpoint's version, or null when the table has none */
  public record Checkpoints(
      Long checkpointVersion, Long checkpointAgeMs, long commitsSinceCheckpoint) {}

  /** The files under {@code _delta_log}. */
  public record Log(
      long logFiles,
      long logBytes,
      long logCommits,
      long logCheckpointFiles,
      Long oldestLogVersion) {}

  public record Protocol(
      int minReaderVersion,
      int minWriterVersion,
      List<String> readerFeatures,
      List<String> writerFeatures) {}

  public record SizeBucket(String label, long minBytes, long maxBytes, long files, long bytes) {}

  /** Durations as Delta writes them ({@code interval 7 days}) and in milliseconds. */
  public record Retention(
      String deletedFileRetention,
      long deletedFileRetentionMs,
      String logRetention,
      long logRetentionMs,
      String checkpointInterval,
      boolean propertiesSet) {}
}
