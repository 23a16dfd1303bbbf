package dev.resurfacer.iceberg.compact;

import java.util.List;

/**
 * What a compaction would do, computed by the same planner the execution uses.
 *
 * @param table the table's name
 * @param snapshotId the snapshot planned against (null for an empty table)
 * @param liveDataFiles live data files the filter selects
 * @param liveDataBytes their bytes
 * @param targetFileSizeBytes the target size of output files
 * @param groups the file groups that would be rewritten
 * @param skippedFiles selected files no group takes
 * @param skippedBecause why those files were left alone
 * @param ordering how rows will be ordered in the new files
 * @param warnings things the user should know (e.g. an ignored z-order column)
 */
public record CompactionPlan(
    String table,
    Long snapshotId,
    long liveDataFiles,
    long liveDataBytes,
    long targetFileSizeBytes,
    List<Group> groups,
    long skippedFiles,
    String skippedBecause,
    String ordering,
    List<String> warnings)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return CompactionText.render(this);
  }

  /** One planned group: its partition, inputs and the runner that will rewrite it (and why). */
  public record Group(
      int index,
      String partition,
      int specId,
      int outputSpecId,
      int files,
      long bytes,
      int deleteFiles,
      int expectedOutputFiles,
      String runner,
      String runnerReason) {}

  public long filesToRewrite() {
    return groups.stream().mapToLong(Group::files).sum();
  }

  public long bytesToRewrite() {
    return groups.stream().mapToLong(Group::bytes).sum();
  }
}
