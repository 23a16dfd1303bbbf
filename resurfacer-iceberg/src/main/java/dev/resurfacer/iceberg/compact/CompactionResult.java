package dev.resurfacer.iceberg.compact;

import java.util.List;

/**
 * What a compaction did.
 *
 * @param groups one result per planned group
 * @param snapshotIds the {@code replace} snapshots committed, oldest first
 * @param danglingDeleteFiles delete files that applied only to rewritten files and are still in the
 *     table (remove-dangling-deletes drops them)
 * @param peakRssBytes the process's peak resident memory (JVM heap plus DuckDB), from the OS
 * @param verification what each group was checked for before it could commit: {@code content} or {@code count}
 */
public record CompactionResult(
    String table,
    List<Group> groups,
    long rewrittenFiles,
    long rewrittenBytes,
    long addedFiles,
    long addedBytes,
    long deleteFilesApplied,
    long rows,
    List<Long> snapshotIds,
    long danglingDeleteFiles,
    long millis,
    long peakRssBytes,
    String verification)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return CompactionText.render(this);
  }

  @Override
  public boolean succeeded() {
    return allCommitted();
  }

  public enum Status {
    COMMITTED,
    FAILED,
    VERIFICATION_FAILED,
    NOT_COMMITTED
  }

  /** One group's outcome; {@code message} says why when it did not commit. */
  public record Group(
      int index,
      String partition,
      String runner,
      Status status,
      int inputFiles,
      long inputBytes,
      int outputFiles,
      long outputBytes,
      int deleteFiles,
      long rows,
      long millis,
      String message) {}

  public boolean allCommitted() {
    return groups.stream().allMatch(g -> g.status() == Status.COMMITTED);
  }
}
