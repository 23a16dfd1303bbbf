package dev.resurfacer.delta.compact;

import java.util.List;

/**
 * @param committedVersions the table versions our commits created, one per bin
 * @param failedBins one line per bin that was not committed (its new files deleted)
 */
public record CompactionResult(
    CompactionPlan plan,
    List<Long> committedVersions,
    long removedFiles,
    long removedBytes,
    long addedFiles,
    long addedBytes,
    long rows,
    List<String> failedBins)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return CompactionText.render(this);
  }

  @Override
  public Object json() {
    return new CompactionText.ResultJson(
        CompactionText.PlanJson.of(plan),
        committedVersions,
        removedFiles,
        removedBytes,
        addedFiles,
        addedBytes,
        rows,
        failedBins);
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
