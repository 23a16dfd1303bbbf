package dev.resurfacer.delta.log;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.Snapshot;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;

/**
 * Writes a checkpoint of the latest version with Kernel. A reader that trusts a checkpoint (Delta
 * Spark's VACUUM among them) takes a file removed within the retention for an unreferenced one if
 * the checkpoint lost its tombstone. Kernel 4.4.0 was seen to carry the tombstones of the commits
 * after the previous checkpoint into the new one ({@code LogMaintenanceTest}); whether it carries
 * those it only finds in an earlier checkpoint is not shown, so a checkpoint is refused while an
 * unexpired tombstone is older than the newest existing checkpoint.
 */
public final class Checkpointer {
  private Checkpointer() {}

  public record Outcome(String table, long version, boolean written, String message) {}

  /**
   * The latest version when it was read, and whether it has a checkpoint already; a plan of a version
   * without one passed the tombstone check.
   */
  public record Plan(DeltaTable table, long version, boolean checkpointed) {
    /** The plan as the outcome of a preview, which writes nothing. */
    public Outcome preview() {
      return checkpointed
          ? alreadyCheckpointed(table, version)
          : new Outcome(
              table.name(), version, false, "would write a checkpoint of version " + version);
    }
  }

  /** The checkpoint {@link #execute} would write now. Reads the log; writes nothing. */
  public static Plan plan(DeltaTable table, Clock clock) {
    Snapshot snapshot = table.latest();
    DeltaLogFiles log = DeltaLogFiles.list(table);
    if (log.latestCheckpoint(snapshot.getVersion())
        .map(c -> c.version() == snapshot.getVersion())
        .orElse(false)) {
      return new Plan(table, snapshot.getVersion(), true);
    }
    refuseWhenTombstonesWouldBeDropped(table, snapshot, log, clock);
    return new Plan(table, snapshot.getVersion(), false);
  }

  /** Writes the checkpoint of the plan's version, unless it has one. */
  public static Outcome execute(Plan plan) {
    if (plan.checkpointed()) {
      return plan.preview();
    }
    DeltaTable table = plan.table();
    try {
      table.atVersion(plan.version()).writeCheckpoint(table.engine());
    } catch (CheckpointAlreadyExistsException e) {
      return alreadyCheckpointed(table, plan.version());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the checkpoint of " + table.name(), e);
    }
    return new Outcome(
        table.name(), plan.version(), true, "wrote a checkpoint of version " + plan.version());
  }

  private static Outcome alreadyCheckpointed(DeltaTable table, long version) {
    return new Outcome(
        table.name(), version, false, "version " + version + " already has a checkpoint");
  }

  static void refuseWhenTombstonesWouldBeDropped(
      DeltaTable table, Snapshot snapshot, DeltaLogFiles log, Clock clock) {
    long cutoff = clock.millis()
        - Retention.deletedFileRetention(snapshot.getTableProperties()).toMillis();
    List<LogFile> commits = log.of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() <= snapshot.getVersion())
        .toList();
    long previous =
        log.latestCheckpoint(snapshot.getVersion()).map(LogFile::version).orElse(-1L);
    long live = Tombstones.read(table, commits).stream()
        .filter(t -> t.deletionTimestamp() >= cutoff && t.version() <= previous)
        .count();
    if (live > 0) {
      throw new SafetyRefusal(
          live + " tombstones within the table's " + Retention.DELETED_FILE_RETENTION
              + " precede the checkpoint of version " + previous
              + "; a Kernel checkpoint is not known to keep those, and a VACUUM "
              + "that trusts the checkpoint could then delete files older versions still need; checkpoint again once they expire");
    }
  }
}
