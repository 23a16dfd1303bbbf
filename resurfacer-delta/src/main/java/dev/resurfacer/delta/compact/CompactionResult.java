package dev.resurfacer.delta.compact;

import java.util.List;

/**
 * What a compaction did; its JSON is its own components, the plan in its JSON form.
 *
 * @param committedVersions the table versions our commits created, one per bin
 * @param failedBins one line per bin that was not committed (its new files deleted)
 * @param verificationCpuNanos the CPU time content verification's reads took on their threads,
 *     both sides of every bin (0 where the JVM cannot tell a thread's CPU time)
 * @param verification what was checked before each commit: {@code content}, {@code count}, or {@code
 *     count, content where the log has no row count} when some bins' input files have no row count in the log
 */
public record CompactionResult(
    CompactionPlan plan,
    List<Long> committedVersions,
    long removedFiles,
    long removedBytes,
    long addedFiles,
    long addedBytes,
    long rows,
    List<String> failedBins,
    long verificationCpuNanos,
    String verification)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return CompactionText.render(this);
  }

  @Override
  public boolean succeeded() {
    return failedBins.isEmpty();
  }

  public CompactionResult {
    committedVersions = List.copyOf(committedVersions);
    failedBins = List.copyOf(failedBins);
  }
}
