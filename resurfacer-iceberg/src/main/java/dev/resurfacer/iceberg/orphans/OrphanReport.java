package dev.resurfacer.iceberg.orphans;

import java.util.List;
import java.util.Map;

/**
 * What one remove-orphans run found and did. In a preview {@code deletedFiles} is zero and
 * {@code orphans} lists what {@code --yes} would delete (the first {@code shown} of them).
 */
public record OrphanReport(
    String table,
    boolean deleted,
    List<String> scope,
    String olderThan,
    long cutoffMillis,
    long listedFiles,
    long listedBytes,
    long keptReachableFiles,
    long keptReachableBytes,
    long keptTooYoungFiles,
    long keptTooYoungBytes,
    long orphanFiles,
    long orphanBytes,
    long deletedFiles,
    long deletedBytes,
    long failedDeletes,
    Map<String, Long> referenced,
    long referencedInScope,
    long referencedOutsideScope,
    int otherTablesChecked,
    List<OrphanFile> orphans,
    boolean orphansTruncated,
    List<String> warnings) {

  /** A file that nothing references and is older than the age guard. */
  public record OrphanFile(String location, long sizeBytes, long ageMillis) {}
}
