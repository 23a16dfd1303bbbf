package dev.resurfacer.maintain;

import java.time.Instant;

/**
 * What {@code serve} watches on a table, read from metadata only (snapshot summaries, the metadata
 * log, manifest entries) and never from data files. A null field is a signal this engine cannot
 * read cheaply; a trigger on it never fires.
 *
 * @param commitsSince snapshots committed after the instant passed to {@link TableFormat#signals}, this tool's own excluded
 * @param deletedRecords rows named by live delete files (position and equality deletes, deletion vectors)
 * @param oldestSnapshot when the oldest snapshot still in the metadata was committed; null with no snapshot
 * @param metadataFiles metadata files the table keeps (the current one and its log)
 */
public record TableSignals(
    Long dataFiles,
    Long smallDataFiles,
    Long deleteFiles,
    Long dataRecords,
    Long deletedRecords,
    Integer snapshots,
    Instant oldestSnapshot,
    Integer metadataFiles,
    Integer commitsSince) {

  /**
   * Whether one partition's small files count toward {@code small-files}: where a bin-pack takes them, at least
   * two and at least {@code minInputFiles} of them, or more bytes of them than the target size; a
   * {@code minInputFiles} of 1 counts every small file. Both formats count by this one rule.
   */
  public static boolean smallFilesCount(
      long files, long bytes, int minInputFiles, long targetFileSize) {
    return minInputFiles <= 1 || files > 1 && (files >= minInputFiles || bytes > targetFileSize);
  }

  /** Deleted rows over data rows, 0 for an empty table; null when either is unknown. */
  public Double deletedRowRatio() {
    if (dataRecords == null || deletedRecords == null) {
      return null;
    }
    return dataRecords == 0 ? 0.0 : (double) deletedRecords / dataRecords;
  }
}
