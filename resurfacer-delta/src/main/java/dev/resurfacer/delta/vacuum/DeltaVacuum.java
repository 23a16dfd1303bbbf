package dev.resurfacer.delta.vacuum;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.log.Retention;
import dev.resurfacer.delta.log.Tombstone;
import dev.resurfacer.delta.log.Tombstones;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.Neighbour;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import dev.resurfacer.units.Durations;
import io.delta.kernel.Snapshot;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Deletes files under a Delta table that no version within the retention needs, like Delta's
 * {@code VACUUM}: a file stays when the current version references it (data file or deletion
 * vector), when a tombstone younger than the retention names it, or when it was written within the
 * retention. The storage is listed before the log is read, so a file written meanwhile is either
 * young or referenced.
 */
public final class DeltaVacuum {
  private DeltaVacuum() {}

  public static VacuumPlan plan(DeltaTable table, VacuumOptions options, Clock clock) {
    Snapshot snapshot = table.latest();
    Duration tableRetention = Retention.deletedFileRetention(snapshot.getTableProperties());
    Duration retention = options.retention().orElse(tableRetention);
    if (retention.compareTo(tableRetention) < 0 && !options.forceShorterRetention()) {
      throw new SafetyRefusal(
          "a retention of " + Durations.format(retention) + " is shorter than the table's "
              + Retention.DELETED_FILE_RETENTION + " (" + Durations.format(tableRetention)
              + "): readers of older versions and running writers could lose files; pass --force-retention to accept that");
    }
    long now = clock.millis();
    long cutoff = now - retention.toMillis();
    List<String> partitionColumns = snapshot.getPartitionColumnNames();
    // kept versions are loaded before anything is listed or planned: an unloadable one stops the
    // run here
    Set<StoredFile> kept = keptFiles(table, options.keepVersions());
    // another table of either format inside this one, or referencing files here (a clone), would
    // lose them
    Set<String> self = Set.of(Neighbour.root(table.storage().root()));
    table
        .fences()
        .neighbours(self)
        .requireNothingInside(self, List.of(table.storage().root()));

    TableStorage.Listing listing = options.lite()
        ? new TableStorage.Listing(List.of(), List.of())
        : table.storage().listForVacuum(partitionColumns);

    // re-read after listing: a commit that lands between the two only adds references
    snapshot = table.latest();
    Set<StoredFile> referenced = new HashSet<>(kept);
    List<List<StoredFile>> live = new ArrayList<>();
    for (LiveFile f : LiveFiles.of(table, snapshot)) {
      live.add(f.identities());
      f.deletionVector()
          .map(DeletionVectorRef::identities)
          .filter(ids -> !ids.isEmpty())
          .ifPresent(live::add);
    }
    live.forEach(referenced::addAll);
    List<Tombstone> tombstones =
        Tombstones.read(table, commitsCovering(table, snapshot.getVersion(), cutoff));
    Set<StoredFile> expired = new HashSet<>();
    for (Tombstone t : tombstones) {
      List<List<StoredFile>> named = new ArrayList<>(List.of(t.identities()));
      t.deletionVector()
          .map(DeletionVectorRef::identities)
          .filter(ids -> !ids.isEmpty())
          .ifPresent(named::add);
      for (List<StoredFile> ids : named) {
        // a path naming two files (a `..` after a link) is kept under both: which one was removed
        // is unknown
        if (t.deletionTimestamp() >= cutoff || ids.size() > 1) {
          referenced.addAll(ids);
        } else {
          expired.add(ids.get(0));
        }
      }
    }

    List<VacuumPlan.Candidate> deletions = options.lite()
        ? liteCandidates(table, expired, referenced, partitionColumns, cutoff)
        : fullCandidates(table, listing, live, referenced, expired, partitionColumns, cutoff);
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    Set<StoredFile> protectedFiles = new HashSet<>();
    table.fences().protectedLocations().forEach(p -> protectedFiles.add(resolver.resolve(p)));
    deletions.removeIf(c -> protectedFiles.contains(c.file())
        || (c.file().isLocal()
            && TableMarkers.isDatabase(java.nio.file.Path.of(c.file().path()))));
    deletions.sort(java.util.Comparator.comparing(c -> c.file().toString()));
    return new VacuumPlan(
        table.name(),
        snapshot.getVersion(),
        retention.toMillis(),
        cutoff,
        listing.files().size(),
        referenced.size(),
        deletions,
        listing.symlinks(),
        options.lite(),
        options.keepVersions());
  }

  /**
   * Full mode: every listed file that nothing references. A live file is judged by its resolved
   * identities, however the log spells it: one that resolves inside the table outside a hidden name
   * must have been listed under one of them, or the run stops; only what resolves outside the table
   * or under a hidden name is exempt.
   */
  private static List<VacuumPlan.Candidate> fullCandidates(
      DeltaTable table,
      TableStorage.Listing listing,
      List<List<StoredFile>> live,
      Set<StoredFile> referenced,
      Set<StoredFile> expired,
      List<String> partitionColumns,
      long cutoff) {
    Set<StoredFile> listed = new HashSet<>();
    listing.files().forEach(l -> listed.add(l.file()));
    for (List<StoredFile> ids : live) {
      boolean listable = ids.stream()
          .anyMatch(p -> table.storage().inside(p)
              && !TableListing.underHidden(table.storage().root(), p, partitionColumns));
      if (listable && ids.stream().noneMatch(listed::contains)) {
        throw new SafetyRefusal(
            "the current version references " + ids.get(0) + ", which the listing did not find: "
                + "the table's files and its log disagree (or paths are not compared as stored); nothing is deleted");
      }
    }
    List<VacuumPlan.Candidate> deletions = new ArrayList<>();
    for (TableStorage.Entry l : listing.files()) {
      if (!referenced.contains(l.file()) && l.modificationTime() < cutoff) {
        deletions.add(new VacuumPlan.Candidate(
            l.file(),
            l.size(),
            l.modificationTime(),
            expired.contains(l.file())
                ? VacuumPlan.Reason.EXPIRED_TOMBSTONE
                : VacuumPlan.Reason.UNREFERENCED));
      }
    }
    return deletions;
  }

  /**
   * Lite mode: the expired tombstones' files, each stat'ed instead of listed. Identities are the
   * resolved {@link StoredFile}s (real paths on local disk), so a tombstone spelling a live file
   * differently (relative, absolute, through a link) never names a candidate; a file resolving
   * outside the table or under a hidden name, a link, or one written within the retention is left
   * alone as in full mode.
   */
  private static List<VacuumPlan.Candidate> liteCandidates(
      DeltaTable table,
      Set<StoredFile> expired,
      Set<StoredFile> referenced,
      List<String> partitionColumns,
      long cutoff) {
    List<VacuumPlan.Candidate> deletions = new ArrayList<>();
    for (StoredFile f : expired) {
      if (referenced.contains(f)
          || !table.storage().inside(f)
          || TableListing.underHidden(table.storage().root(), f, partitionColumns)) {
        continue;
      }
      try {
        table
            .storage()
            .stat(f)
            .filter(e -> e.modificationTime() < cutoff)
            .ifPresent(e -> deletions.add(new VacuumPlan.Candidate(
                f, e.size(), e.modificationTime(), VacuumPlan.Reason.EXPIRED_TOMBSTONE)));
      } catch (IOException e) {
        throw new SafetyRefusal(
            "cannot read " + f + " (" + e.getMessage() + "); nothing is deleted");
      }
    }
    return deletions;
  }

  /** The data files and deletion vectors of the versions kept on request; a version Kernel cannot load is a usage error. */
  static Set<StoredFile> keptFiles(DeltaTable table, List<Long> versions) {
    Set<StoredFile> kept = new HashSet<>();
    for (long v : versions) {
      Snapshot s;
      try {
        s = table.atVersion(v);
      } catch (RuntimeException e) {
        throw new UsageException(
            "--keep-versions " + v + ": version " + v + " of " + table.name()
                + " can no longer be loaded (its log was cleaned up, or it does not exist yet); nothing is deleted"
                + " (from a policy: vacuum.keep-versions; cleanup-log removes log entries older than the table's log retention)");
      }
      for (LiveFile f : LiveFiles.of(table, s)) {
        kept.addAll(f.identities());
        f.deletionVector().map(DeletionVectorRef::identities).ifPresent(kept::addAll);
      }
    }
    return kept;
  }

  /**
   * The JSON commits whose tombstones can still be unexpired. When the log no longer reaches back to
   * the retention's start (its oldest commit is younger than the cutoff and is not version 0), a
   * tombstone younger than the retention may live only in a checkpoint, and Kernel's checkpoints
   * drop those: refuse rather than guess.
   */
  static List<LogFile> commitsCovering(DeltaTable table, long version, long cutoff) {
    List<LogFile> commits = DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() <= version)
        .toList();
    if (commits.isEmpty()) {
      throw new SafetyRefusal("the log of " + table.name()
          + " holds no JSON commits; cannot tell which removed files are still needed");
    }
    LogFile oldest = commits.get(0);
    if (oldest.version() != 0 && oldest.modificationTime() >= cutoff) {
      throw new SafetyRefusal("the log's oldest commit (version " + oldest.version()
          + ") is younger than the retention, so "
          + "tombstones within the retention may survive only in a checkpoint; nothing is deleted");
    }
    // every commit is read, not only those younger than the cutoff by modification time: a copied
    // or
    // restored log can carry any modification time, while a tombstone's own timestamp is what
    // counts
    return commits;
  }

  /**
   * Deletes the previewed files that are still eligible: the plan is computed again, and a file is
   * deleted only if both plans name it and it is still a regular file (never a link) of the same
   * age under the table.
   */
  public static VacuumResult execute(
      DeltaTable table, VacuumPlan preview, VacuumOptions options, Clock clock) {
    return execute(table, preview, options, clock, Progress.NONE);
  }

  /** As {@link #execute(DeltaTable, VacuumPlan, VacuumOptions, Clock)}, telling {@code progress} of each file as it goes. */
  public static VacuumResult execute(
      DeltaTable table, VacuumPlan preview, VacuumOptions options, Clock clock, Progress progress) {
    VacuumPlan now = plan(table, options, clock);
    Set<StoredFile> stillEligible = new HashSet<>();
    now.deletions().forEach(c -> stillEligible.add(c.file()));
    long deleted = 0, bytes = 0;
    List<String> skipped = new ArrayList<>();
    try (Progress.Task task = progress.start(
        "vacuum " + table.name() + ": delete",
        "files",
        preview.deletions().size(),
        preview.deletions().stream().mapToLong(VacuumPlan.Candidate::size).sum())) {
      for (VacuumPlan.Candidate c : preview.deletions()) {
        task.advance(1, c.size());
        if (!stillEligible.contains(c.file()) || !table.storage().inside(c.file())) {
          skipped.add(c.file() + ": referenced or changed since the preview");
          continue;
        }
        try {
          var current = table.storage().stat(c.file());
          if (current.isEmpty() || current.get().modificationTime() != c.modificationTime()) {
            skipped.add(c.file() + ": no longer the previewed regular file");
            continue;
          }
          table.storage().delete(c.file());
          deleted++;
          bytes += c.size();
        } catch (java.nio.file.NoSuchFileException e) {
          skipped.add(c.file() + ": already gone");
        } catch (IOException e) {
          skipped.add(c.file() + ": " + e.getMessage());
        }
      }
    }
    return new VacuumResult(preview, deleted, bytes, skipped);
  }
}
