package dev.resurfacer.iceberg.compact;

import dev.resurfacer.units.ByteSizes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.SizeBasedFileRewritePlanner;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Why the files no group takes were left alone, each by its own cause: outside {@code --partition};
 * in a condensed spec;
 * not a candidate (within the size range, not deleted enough), by the planner's own file filter;
 * or a candidate whose partition did not qualify as a group (fewer than {@code min-input-files}
 * candidates and less than the target size together, or past {@code max-files-to-rewrite}).
 */
final class SkipReasons {
  private static final String MIN_IDLE_LABEL = "min-partition-idle";
  /** The planner's file filter, which is protected: a candidate is a file a group could take. */
  private static final class Candidates extends BinPackRewriteFilePlanner {
    Candidates(Table table, org.apache.iceberg.expressions.Expression filter, long snapshotId) {
      super(table, filter, snapshotId, true);
    }

    boolean candidate(FileScanTask task) {
      return filterFiles(List.of(task)).iterator().hasNext();
    }
  }

  private final Candidates candidates;
  private final CompactionOptions options;
  private final long target;
  private final Map<String, String> plannerOptions;
  private final Set<Integer> condensed;
  private final IdlePartitions idle;
  private final Table table;
  private long outsidePartition;
  private long busy;
  private final Set<String> busyPartitions = new HashSet<>();
  private long inCondensedSpec;
  private long inRange;
  private long inRangeBytes;
  private long ungrouped;
  private long ungroupedBytes;
  private final Set<String> ungroupedPartitions = new HashSet<>();

  /**
   * @param condensed specs whose files compaction leaves where condense put them
   * @param idle the partitions changed within {@code min-partition-idle}; null when not set
   */
  SkipReasons(
      Table table,
      CompactionOptions options,
      long snapshotId,
      long target,
      Set<Integer> condensed,
      IdlePartitions idle) {
    this.table = table;
    this.idle = idle;
    this.options = options;
    this.condensed = condensed;
    this.target = target;
    this.candidates = new Candidates(table, options.filter(), snapshotId);
    this.plannerOptions = options.plannerOptions(candidates.validOptions());
    candidates.init(plannerOptions);
  }

  /** One live file no group took, with its partition as {@code --partition} matches it. */
  void add(FileScanTask task, String partition) {
    if (!GroupPlanner.inPartition(partition, options.partition())) {
      outsidePartition++;
    } else if (condensed.contains(task.file().specId())) {
      inCondensedSpec++;
    } else if (idle != null && idle.busy(table, task.file()) && candidates.candidate(task)) {
      busy++;
      busyPartitions.add(partition);
    } else if (!candidates.candidate(task)) {
      inRange++;
      inRangeBytes += task.file().fileSizeInBytes();
    } else {
      ungrouped++;
      ungroupedBytes += task.file().fileSizeInBytes();
      ungroupedPartitions.add(partition);
    }
  }

  String because() {
    List<String> why = new ArrayList<>();
    if (ungrouped > 0) {
      int minInputFiles = PropertyUtil.propertyAsInt(
          plannerOptions,
          SizeBasedFileRewritePlanner.MIN_INPUT_FILES,
          SizeBasedFileRewritePlanner.MIN_INPUT_FILES_DEFAULT);
      String cap = plannerOptions.containsKey(BinPackRewriteFilePlanner.MAX_FILES_TO_REWRITE)
          ? ", or past max-files-to-rewrite ("
              + plannerOptions.get(BinPackRewriteFilePlanner.MAX_FILES_TO_REWRITE) + ")"
          : "";
      // the planner never takes a lone file for its size, whatever min-input-files says
      String fewer = minInputFiles >= 2
          ? "min-input-files (" + minInputFiles + ")"
          : "two (a lone file is not rewritten for its size)";
      why.add(String.format(
          Locale.ROOT,
          "%d file(s) (%s) worth rewriting, in %d partition(s) with fewer than %s"
              + " such files and less than the target size (%s) together%s",
          ungrouped,
          ByteSizes.format(ungroupedBytes),
          ungroupedPartitions.size(),
          fewer,
          ByteSizes.format(target),
          cap));
    }
    if (inRange > 0) {
      long min = PropertyUtil.propertyAsLong(
          plannerOptions, SizeBasedFileRewritePlanner.MIN_FILE_SIZE_BYTES, (long)
              (target * SizeBasedFileRewritePlanner.MIN_FILE_SIZE_DEFAULT_RATIO));
      long max = PropertyUtil.propertyAsLong(
          plannerOptions, SizeBasedFileRewritePlanner.MAX_FILE_SIZE_BYTES, (long)
              (target * SizeBasedFileRewritePlanner.MAX_FILE_SIZE_DEFAULT_RATIO));
      why.add(String.format(
          Locale.ROOT,
          "%d file(s) (%s) within the size range (%d..%d bytes) with too few deletes to rewrite",
          inRange,
          ByteSizes.format(inRangeBytes),
          min,
          max));
    }
    if (busy > 0) {
      why.add(busy + " file(s) worth rewriting in " + busyPartitions.size()
          + " partition(s) a writer changed within " + MIN_IDLE_LABEL + " ("
          + dev.resurfacer.units.Durations.format(idle.idle()) + "), left for a later run");
    }
    if (inCondensedSpec > 0) {
      why.add(
          inCondensedSpec
              + " file(s) in a condensed spec (the default with its time field coarsened), left where condense put them");
    }
    if (outsidePartition > 0) {
      why.add(outsidePartition + " file(s) outside --partition " + options.partition());
    }
    return String.join("; ", why);
  }
}
