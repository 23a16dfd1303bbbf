package dev.resurfacer.delta.describe;

import java.util.List;
import java.util.Map;

/**
 * What {@code describe} reports for a Delta table. Byte counts are bytes, ages milliseconds.
 *
 * @param records rows before deletion vectors; null when some file has no {@code numRecords} stat
 * @param deletedRowRatio rows deleted by deletion vectors over {@code records}; null when records is unknown
 * @param tombstones remove actions in the commits still in the log
 * @param tombstonesInRetention of those, the ones newer than the deleted-file retention (their files are kept for time travel)
 * @param checkpointVersion the newest checkpoint's version, or null when the table has none
 */
public record DeltaHealth(
    String table,
    String location,
    String format,
    long version,
    long lastCommitAgeMs,
    Protocol protocol,
    List<String> partitionColumns,
    long dataFiles,
    long dataBytes,
    Long records,
    long averageDataFileBytes,
    long targetFileSizeBytes,
    long smallDataFiles,
    List<SizeBucket> sizeHistogram,
    long filesWithDeletionVectors,
    long deletedRows,
    Double deletedRowRatio,
    long tombstones,
    long tombstonesInRetention,
    Long checkpointVersion,
    Long checkpointAgeMs,
    long commitsSinceCheckpoint,
    long logFiles,
    long logBytes,
    long logCommits,
    long logCheckpointFiles,
    Long oldestLogVersion,
    Retention retention,
    Map<String, String> properties) implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return DeltaHealthText.render(this);
  }


  public record Protocol(int minReaderVersion, int minWriterVersion, List<String> readerFeatures, List<String> writerFeatures) {}

  public record SizeBucket(String label, long minBytes, long maxBytes, long files, long bytes) {}

  /** Durations as Delta writes them ({@code interval 7 days}) and in milliseconds. */
  public record Retention(String deletedFileRetention, long deletedFileRetentionMs, String logRetention, long logRetentionMs,
      String checkpointInterval, boolean propertiesSet) {}
}
