package dev.resurfacer.delta.vacuum;

import dev.resurfacer.storage.StoredFile;
import java.util.List;

/**
 * What {@code vacuum} deletes (preview) or deleted: files under the table that no version within
 * the retention needs.
 *
 * @param version the table version the plan was computed against
 * @param retentionMs the retention applied
 * @param cutoffMs files removed before, and written before, this instant are eligible
 * @param listedFiles regular files found under the table (hidden names and {@code _delta_log} excluded)
 * @param referencedFiles files the current version and its unexpired tombstones reference
 * @param symlinksSkipped symbolic links found under the table: never followed, never deleted
 * @param lite nothing was listed: only files named by tombstones still in the log were considered
 * @param keptVersions versions whose files were protected on request
 */
public record VacuumPlan(
    String table,
    long version,
    long retentionMs,
    long cutoffMs,
    long listedFiles,
    long referencedFiles,
    List<Candidate> deletions,
    List<StoredFile> symlinksSkipped,
    boolean lite,
    List<Long> keptVersions) {
  public VacuumPlan {
    deletions = List.copyOf(deletions);
    symlinksSkipped = List.copyOf(symlinksSkipped);
    keptVersions = List.copyOf(keptVersions);
  }

  public long bytes() {
    return deletions.stream().mapToLong(Candidate::size).sum();
  }

  /** A file to delete and why it is no longer needed. */
  public record Candidate(StoredFile file, long size, long modificationTime, Reason reason) {}

  public enum Reason {
    /** removed from the table longer ago than the retention */
    EXPIRED_TOMBSTONE,
    /** never referenced by any version still in the log (a failed write's leftover, or vacuumed history) */
    UNREFERENCED
  }
}
