package dev.resurfacer.delta.log;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Readout;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What {@code cleanup-log} shows: the log entries past the retention, and with {@code --yes} what was deleted. */
public final class CleanupLogReadout implements Readout {
  /** What {@code --output json} writes. */
  public record Report(
      String table,
      long version,
      long retentionMs,
      long keepFromVersion,
      List<String> deletions,
      boolean deleted,
      long deletedFiles,
      long deletedBytes) {}

  private final LogCleanup.Plan plan;
  private final boolean deleted;
  private final long deletedFiles;
  private final long deletedBytes;

  private CleanupLogReadout(
      LogCleanup.Plan plan, boolean deleted, long deletedFiles, long deletedBytes) {
    this.plan = plan;
    this.deleted = deleted;
    this.deletedFiles = deletedFiles;
    this.deletedBytes = deletedBytes;
  }

  /** @param retention null for the table's {@code delta.logRetentionDuration} */
  public static CleanupLogReadout run(
      DeltaTable table, Duration retention, Mode mode, Clock clock) {
    LogCleanup.Plan plan = LogCleanup.plan(table, Optional.ofNullable(retention), clock);
    if (mode == Mode.COMMIT) {
      LogCleanup.Result r = LogCleanup.execute(table, plan);
      return new CleanupLogReadout(plan, true, r.deleted(), r.deletedBytes());
    }
    return new CleanupLogReadout(plan, false, 0, 0);
  }

  @Override
  public Object json() {
    return new Report(
        plan.table(),
        plan.version(),
        plan.retentionMs(),
        plan.keepFromVersion(),
        plan.deletions().stream().map(f -> f.path().toString()).toList(),
        deleted,
        deletedFiles,
        deletedBytes);
  }

  @Override
  public String render() {
    StringBuilder b = new StringBuilder("cleanup-log " + plan.table() + " at version "
        + plan.version() + (deleted ? "" : "  (preview: nothing deleted; --yes deletes)") + "\n");
    b.append("retention      ")
        .append(Durations.format(Duration.ofMillis(plan.retentionMs())))
        .append('\n');
    b.append("to delete      ")
        .append(plan.deletions().size())
        .append(" log files, ")
        .append(ByteSizes.format(plan.bytes()))
        .append(
            plan.keepFromVersion() < 0
                ? " (no checkpoint older than the retention has only old commits before it)"
                : " (versions before the checkpoint of version " + plan.keepFromVersion() + ")")
        .append('\n');
    for (LogFile f : plan.deletions().stream().limit(10).toList()) {
      b.append("  ").append(TableStorage.name(f.path())).append('\n');
    }
    if (deleted) {
      b.append("deleted        ")
          .append(deletedFiles)
          .append(" files, ")
          .append(ByteSizes.format(deletedBytes));
    }
    return b.toString().stripTrailing();
  }
}
