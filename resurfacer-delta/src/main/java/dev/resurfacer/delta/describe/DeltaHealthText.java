package dev.resurfacer.delta.describe;

import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Locale;

/** The one-screen text form of {@link DeltaHealth}. */
final class DeltaHealthText {
  private DeltaHealthText() {}

  static String render(DeltaHealth h) {
    DeltaHealth.DataFiles data = h.data();
    DeltaHealth.DeletionVectors dvs = h.deletionVectors();
    DeltaHealth.Checkpoints checkpoints = h.checkpoints();
    DeltaHealth.Log log = h.log();
    StringBuilder b = new StringBuilder();
    line(
        b,
        "table",
        h.table() + "  (delta, version " + h.version() + ", last commit " + age(h.lastCommitAgeMs())
            + " ago)");
    line(b, "location", h.location());
    line(
        b,
        "protocol",
        "reader v" + h.protocol().minReaderVersion() + ", writer v"
            + h.protocol().minWriterVersion()
            + (h.protocol().writerFeatures().isEmpty()
                ? ""
                : "; features " + String.join(", ", h.protocol().writerFeatures())));
    line(
        b,
        "partitioned by",
        h.partitionColumns().isEmpty() ? "(none)" : String.join(", ", h.partitionColumns()));
    line(
        b,
        "data files",
        data.dataFiles() + " files, " + ByteSizes.format(data.dataBytes()) + ", "
            + (data.records() == null ? "unknown" : data.records()) + " records, avg "
            + ByteSizes.format(data.averageDataFileBytes()));
    line(
        b,
        "small files",
        data.smallDataFiles() + " below 75% of the " + ByteSizes.format(data.targetFileSizeBytes())
            + " target");
    long maxFiles = data.sizeHistogram().stream()
        .mapToLong(DeltaHealth.SizeBucket::files)
        .max()
        .orElse(0);
    for (DeltaHealth.SizeBucket bucket : data.sizeHistogram()) {
      int bar = maxFiles == 0 ? 0 : (int) Math.ceil(30.0 * bucket.files() / maxFiles);
      b.append(String.format(
          Locale.ROOT, "  %14s  %-30s %d%n", bucket.label(), "#".repeat(bar), bucket.files()));
    }
    line(
        b,
        "deletion vectors",
        dvs.filesWithDeletionVectors() + " files, " + dvs.deletedRows() + " rows deleted"
            + (dvs.deletedRowRatio() == null
                ? ""
                : String.format(Locale.ROOT, " (%.1f%% of rows)", 100 * dvs.deletedRowRatio())));
    line(
        b,
        "tombstones",
        h.removals().tombstones() + " in the log, " + h.removals().tombstonesInRetention()
            + " within the file retention");
    line(
        b,
        "checkpoint",
        checkpoints.checkpointVersion() == null
            ? "none (" + checkpoints.commitsSinceCheckpoint() + " commits to replay)"
            : "version " + checkpoints.checkpointVersion() + ", "
                + age(checkpoints.checkpointAgeMs()) + " old, "
                + checkpoints.commitsSinceCheckpoint() + " commits since");
    line(
        b,
        "log",
        log.logFiles() + " files, " + ByteSizes.format(log.logBytes()) + " (" + log.logCommits()
            + " commits, "
            + log.logCheckpointFiles() + " checkpoint files, oldest version "
            + (log.oldestLogVersion() == null ? "-" : log.oldestLogVersion())
            + ")");
    line(
        b,
        "retention",
        "deleted files " + h.retention().deletedFileRetention() + ", log "
            + h.retention().logRetention() + ", checkpoint every "
            + h.retention().checkpointInterval() + " commits");
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(Locale.ROOT, "%-18s %s%n", label, value));
  }

  private static String age(Long ms) {
    return ms == null ? "-" : Durations.humanAge(Duration.ofMillis(Math.max(0, ms)));
  }
}
