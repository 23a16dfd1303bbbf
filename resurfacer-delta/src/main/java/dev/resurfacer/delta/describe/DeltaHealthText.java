package dev.resurfacer.delta.describe;

import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Locale;

/** The one-screen text form of {@link DeltaHealth}. */
final class DeltaHealthText {
  private DeltaHealthText() {}

  static String render(DeltaHealth h) {
    StringBuilder b = new StringBuilder();
    line(b, "table", h.table() + "  (delta, version " + h.version() + ", last commit " + age(h.lastCommitAgeMs()) + " ago)");
    line(b, "location", h.location());
    line(b, "protocol", "reader v" + h.protocol().minReaderVersion() + ", writer v" + h.protocol().minWriterVersion()
        + (h.protocol().writerFeatures().isEmpty() ? "" : "; features " + String.join(", ", h.protocol().writerFeatures())));
    line(b, "partitioned by", h.partitionColumns().isEmpty() ? "(none)" : String.join(", ", h.partitionColumns()));
    line(b, "data files", h.dataFiles() + " files, " + ByteSizes.format(h.dataBytes()) + ", "
        + (h.records() == null ? "unknown" : h.records()) + " records, avg " + ByteSizes.format(h.averageDataFileBytes()));
    line(b, "small files", h.smallDataFiles() + " below 75% of the " + ByteSizes.format(h.targetFileSizeBytes()) + " target");
    long maxFiles = h.sizeHistogram().stream().mapToLong(DeltaHealth.SizeBucket::files).max().orElse(0);
    for (DeltaHealth.SizeBucket bucket : h.sizeHistogram()) {
      int bar = maxFiles == 0 ? 0 : (int) Math.ceil(30.0 * bucket.files() / maxFiles);
      b.append(String.format(Locale.ROOT, "  %14s  %-30s %d%n", bucket.label(), "#".repeat(bar), bucket.files()));
    }
    line(b, "deletion vectors", h.filesWithDeletionVectors() + " files, " + h.deletedRows() + " rows deleted"
        + (h.deletedRowRatio() == null ? "" : String.format(Locale.ROOT, " (%.1f%% of rows)", 100 * h.deletedRowRatio())));
    line(b, "tombstones", h.tombstones() + " in the log, " + h.tombstonesInRetention() + " within the file retention");
    line(b, "checkpoint", h.checkpointVersion() == null ? "none (" + h.commitsSinceCheckpoint() + " commits to replay)"
        : "version " + h.checkpointVersion() + ", " + age(h.checkpointAgeMs()) + " old, " + h.commitsSinceCheckpoint()
            + " commits since");
    line(b, "log", h.logFiles() + " files, " + ByteSizes.format(h.logBytes()) + " (" + h.logCommits() + " commits, "
        + h.logCheckpointFiles() + " checkpoint files, oldest version " + (h.oldestLogVersion() == null ? "-" : h.oldestLogVersion()) + ")");
    line(b, "retention", "deleted files " + h.retention().deletedFileRetention() + ", log " + h.retention().logRetention()
        + ", checkpoint every " + h.retention().checkpointInterval() + " commits");
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-18s %s%n", label, value));
  }

  private static String age(Long ms) {
    return ms == null ? "-" : Durations.humanAge(Duration.ofMillis(Math.max(0, ms)));
  }
}
