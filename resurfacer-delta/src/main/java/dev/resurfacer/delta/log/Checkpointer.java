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

  public static Outcome preview(DeltaTable table, Clock clock) {
    Snapshot snapshot = table.latest();
    DeltaLogFiles log = DeltaLogFiles.list(table);
    if (log.latestCheckpoint(snapshot.getVersion()).map(c -> c.version() == snapshot.getVersion()).orElse(false)) {
      return new Outcome(table.name(), snapshot.getVersion(), false, "version " + snapshot.getVersion() + " already has a checkpoint");
    }
    refuseWhenTombstonesWouldBeDropped(table, snapshot, log, clock);
    return new Outcome(table.name(), snapshot.getVersion(), false, "would write a checkpoint of version " + snapshot.getVersion());
  }

  public static Outcome write(DeltaTable table, Clock clock) {
    Outcome preview = preview(table, clock);
    if (preview.message().contains("already has")) {
      return preview;
    }
    try {
      table.atVersion(preview.version()).writeCheckpoint(table.engine());
    } catch (CheckpointAlreadyExistsException e) {
      return new Outcome(table.name(), preview.version(), false, "version " + preview.version() + " already has a checkpoint");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the checkpoint of " + table.name(), e);
    }
    return new Outcome(table.name(), preview.version(), true, "wrote a checkpoint of version " + preview.version());
  }

  static void refuseWhenTombstonesWouldBeDropped(DeltaTable table, Snapshot snapshot, DeltaLogFiles log, Clock clock) {
    long cutoff = clock.millis() - Retention.deletedFileRetention(snapshot.getTableProperties()).toMillis();
    List<LogFile> commits = log.of(LogFile.Kind.COMMIT).stream().filter(c -> c.version() <= snapshot.getVersion()).toList();
    long previous = log.latestCheckpoint(snapshot.getVersion()).map(LogFile::version).orElse(-1L);
    long live = Tombstones.read(table, commits).stream()
        .filter(t -> t.deletionTimestamp() >= cutoff && t.version() <= previous).count();
    if (live > 0) {
      throw new SafetyRefusal(live + " tombstones within the table's " + Retention.DELETED_FILE_RETENTION
          + " precede the checkpoint of version " + previous + "; a Kernel checkpoint is not known to keep those, and a VACUUM "
          + "that trusts the checkpoint could then delete files older versions still need; checkpoint again once they expire");
    }
  }
}
