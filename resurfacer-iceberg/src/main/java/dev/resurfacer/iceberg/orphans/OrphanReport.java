package dev.resurfacer.iceberg.orphans;

import java.util.List;
import java.util.Map;

/**
 * What one remove-orphans run found and did. {@code deleted} is true when the run acted ({@code --yes});
 * in a preview {@code deletedFiles} is zero and {@code orphans} lists what {@code --yes} would remove
 * (the first {@code shown} of them). With quarantine the candidates are moved, not deleted:
 * {@code quarantinedFiles} counts them and {@code quarantineRun} names the run to restore.
 * {@code listing} is null when storage was listed, else the listing read instead.
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
    String quarantineRun,
    long quarantinedFiles,
    long quarantinedBytes,
    long purgedQuarantineFiles,
    long purgedQuarantineBytes,
    Map<String, Long> referenced,
    long referencedInScope,
    long referencedOutsideScope,
    int otherTablesChecked,
    long linksSkipped,
    long protectedSkipped,
    List<OrphanFile> orphans,
    boolean orphansTruncated,
    List<String> warnings,
    Listing listing) {

  /** A listing read instead of listing storage: where from, when it was taken, how many of its entries lie outside the scope. */
  public record Listing(String source, long takenAtMillis, long entriesOutsideScope) {}

  /** A file that nothing references and is older than the age guard. */
  public record OrphanFile(String location, long sizeBytes, long ageMillis) {}
}
