package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Commits verified groups in pieces, each piece one {@code replace} snapshot validated from the
 * newest snapshot seen, carrying onto the new files the deletes a writer committed meanwhile on the
 * inputs ({@link ConcurrentDeletes}) instead of failing. A delete committed between our look and
 * our commit fails core's validation; the piece is then translated again from the newer snapshot, a
 * bounded number of times. A group whose input a concurrent commit removed (a copy-on-write delete
 * or update, another rewrite) cannot be carried: its rows changed, so it is given up, saying so.
 * At the starting sequence number the new files stay older than equality deletes committed
 * meanwhile, which keep applying to them as before.
 */
final class CarryingCommits {
  static final int ATTEMPTS = 10;

  /** @param notes per committed group, how many concurrent deletes it carried (absent when none) */
  record Outcome(
      Set<RewriteFileGroup> committed,
      Map<RewriteFileGroup, String> failures,
      Map<RewriteFileGroup, String> notes) {}

  private final Table table;
  private final long startingSnapshotId;
  private final boolean atStartingSequenceNumber;
  private final Expression filter;
  private final int perCommit;
  private final long commitEveryNanos;
  private long lastCommitNanos = System.nanoTime();
  private final Map<String, String> summary;
  private final UnaryOperator<ConcurrentDeletes.Translation> fault;
  private final List<RewriteFileGroup> pending = new ArrayList<>();
  private final Set<RewriteFileGroup> committed = new HashSet<>();
  private final Map<RewriteFileGroup, String> failures = new LinkedHashMap<>();
  private final Map<RewriteFileGroup, String> notes = new HashMap<>();

  /**
   * @param perCommit groups per commit: a piece commits as soon as it is full
   * @param commitEvery a piece also commits when a group joins it this long after the last commit
   *     (or the start); null for no time bound
   * @param fault test seam applied to each translation; {@link UnaryOperator#identity()} otherwise
   */
  CarryingCommits(
      Table table,
      long startingSnapshotId,
      boolean atStartingSequenceNumber,
      Expression filter,
      int perCommit,
      java.time.Duration commitEvery,
      Map<String, String> summary,
      UnaryOperator<ConcurrentDeletes.Translation> fault) {
    this.commitEveryNanos = commitEvery == null ? Long.MAX_VALUE : commitEvery.toNanos();
    this.table = table;
    this.startingSnapshotId = startingSnapshotId;
    this.atStartingSequenceNumber = atStartingSequenceNumber;
    this.filter = filter;
    this.perCommit = perCommit;
    this.summary = Map.copyOf(summary);
    this.fault = fault;
  }

  synchronized void offer(RewriteFileGroup group) {
    pending.add(group);
    if (pending.size() >= perCommit || System.nanoTime() - lastCommitNanos >= commitEveryNanos) {
      commitPending();
    }
  }

  synchronized Outcome finish() {
    if (!pending.isEmpty()) {
      commitPending();
    }
    return new Outcome(Set.copyOf(committed), Map.copyOf(failures), Map.copyOf(notes));
  }

  private void commitPending() {
    List<RewriteFileGroup> piece = new ArrayList<>(pending);
    pending.clear();
    commitTogether(piece, new LinkedHashMap<>());
    lastCommitNanos = System.nanoTime();
  }

  /**
   * @param carried translations made by an earlier attempt, reused while their basis holds (a
   *     translation costs reading the group's new files twice; the shorter an attempt, the less
   *     often a writer's commit falls inside it)
   */
  private void commitTogether(
      List<RewriteFileGroup> piece, Map<RewriteFileGroup, ConcurrentDeletes.Carried> carried) {
    String lastConflict = null;
    // how long each attempt took, from its look at the newest snapshot to its commit's answer: a
    // writer committing more often than this on the group's inputs wins every attempt
    List<Long> attemptMillis = new ArrayList<>();
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      long attemptStart = System.nanoTime();
      table.refresh();
      Snapshot now = table.currentSnapshot();
      try {
        Map<String, FileScanTask> live = liveTasks(now, piece);
        for (Iterator<RewriteFileGroup> it = piece.iterator(); it.hasNext(); ) {
          RewriteFileGroup g = it.next();
          String removed = g.rewrittenFiles().stream()
              .map(DataFile::location)
              .filter(l -> !live.containsKey(l))
              .findFirst()
              .orElse(null);
          if (removed != null) {
            discard(carried.remove(g));
            giveUp(
                g,
                "input file " + removed
                    + " was removed by a concurrent commit (a copy-on-write delete or update, "
                    + "or another rewrite): its rows changed under the rewrite, so it cannot be carried; new files removed, "
                    + "the next run plans the partition again");
            it.remove();
            continue;
          }
          ConcurrentDeletes.Carried before = carried.get(g);
          if (before != null && before.basis().equals(ConcurrentDeletes.basis(g, live))) {
            continue;
          }
          discard(carried.remove(g));
          try {
            carried.put(g, ConcurrentDeletes.carry(table, g, live, fault));
          } catch (ConcurrentDeletes.NotCarried e) {
            giveUp(g, e.getMessage() + "; new files removed, nothing committed");
            it.remove();
          }
        }
        if (piece.isEmpty()) {
          return;
        }
        commit(now, piece, carried);
        for (RewriteFileGroup g : piece) {
          committed.add(g);
          long rows = carried.get(g).rows();
          if (rows > 0 || attempt > 1) {
            attemptMillis.add((System.nanoTime() - attemptStart) / 1_000_000);
            notes.put(
                g,
                "carried " + rows + " row" + (rows == 1 ? "" : "s")
                    + " deleted concurrently onto the new files"
                    + (attempt > 1
                        ? " (commit attempt " + attempt + "; attempts took " + span(attemptMillis)
                            + ")"
                        : ""));
          }
        }
        return;
      } catch (ValidationException e) {
        // a writer committed a delete on an input after our look (or removed one): look again
        // core names the data file by its whole metadata: its path is what a reader needs
        attemptMillis.add((System.nanoTime() - attemptStart) / 1_000_000);
        lastConflict = Compaction.failureMessage(e)
            .replaceAll("Generic(?:Data|Delete)File\\{[^}]*?file_path=([^,]+),[^}]*}", "$1");
        if (piece.size() > 1 && attempt >= 2) {
          // a writer keeps winning against the whole piece: each group alone conflicts only with
          // the writer's commits to its own files
          for (RewriteFileGroup g : piece) {
            Map<RewriteFileGroup, ConcurrentDeletes.Carried> own = new LinkedHashMap<>();
            if (carried.containsKey(g)) {
              own.put(g, carried.get(g));
            }
            commitTogether(new ArrayList<>(List.of(g)), own);
          }
          return;
        }
        pause(attempt);
      } catch (CommitStateUnknownException e) {
        // the commit may have landed: its files, carried deletes included, must stay
        piece.forEach(g -> failures.put(
            g,
            "commit state unknown, new files kept (they may be committed; reload the table to see): "
                + e.getMessage()));
        return;
      } catch (RuntimeException e) {
        carried.values().forEach(this::discard);
        String why = "commit failed, new files removed: " + e.getMessage();
        piece.forEach(g -> giveUp(g, why));
        return;
      }
    }
    carried.values().forEach(this::discard);
    String why = "not committed after " + ATTEMPTS + " attempts (each took " + span(attemptMillis)
        + "): each met a delete committed" + " concurrently on its inputs after it looked (last: "
        + lastConflict + "); new files removed";
    piece.forEach(g -> giveUp(g, why));
  }

  private static String span(List<Long> millis) {
    long min = millis.stream().mapToLong(Long::longValue).min().orElse(0);
    long max = millis.stream().mapToLong(Long::longValue).max().orElse(0);
    return min == max ? min + " ms" : min + "-" + max + " ms";
  }

  private void discard(ConcurrentDeletes.Carried carried) {
    if (carried != null) {
      ConcurrentDeletes.delete(table, carried.written());
    }
  }

  private void commit(
      Snapshot now,
      List<RewriteFileGroup> piece,
      Map<RewriteFileGroup, ConcurrentDeletes.Carried> carried) {
    Set<String> replaced = new HashSet<>();
    piece.forEach(g -> carried.get(g).replaced().forEach(d -> replaced.add(d.location())));
    Table committing = atStartingSequenceNumber
        ? NewDeletesFence.around(table, startingSnapshotId, replaced)
        : table;
    RewriteFiles rewrite = committing.newRewrite().validateFromSnapshot(now.snapshotId());
    if (atStartingSequenceNumber) {
      rewrite.dataSequenceNumber(table.snapshot(startingSnapshotId).sequenceNumber());
    }
    for (RewriteFileGroup g : piece) {
      g.rewrittenFiles().forEach(rewrite::deleteFile);
      g.addedFiles().forEach(rewrite::addFile);
      // the inputs' deletion vectors (and writers' position-delete files naming only an input) go
      // with them
      carried.get(g).replaced().forEach(rewrite::deleteFile);
      carried.get(g).written().forEach(rewrite::addFile);
    }
    summary.forEach(rewrite::set);
    rewrite.commit();
  }

  /** Each input's scan task at {@code now}, its deletes as they are now; an input missing here was removed. */
  private Map<String, FileScanTask> liveTasks(Snapshot now, List<RewriteFileGroup> piece) {
    Map<String, FileScanTask> out = new HashMap<>();
    if (now.snapshotId() == startingSnapshotId) {
      piece.forEach(g -> g.fileScanTasks().forEach(t -> out.put(t.file().location(), t)));
      return out;
    }
    Set<String> inputs = new HashSet<>();
    piece.forEach(g -> g.rewrittenFiles().forEach(f -> inputs.add(f.location())));
    // the same filter that planned the groups selects the same files again: their statistics did
    // not change
    try (CloseableIterable<FileScanTask> tasks = table
        .newScan()
        .useSnapshot(now.snapshotId())
        .filter(filter)
        .ignoreResiduals()
        .planFiles()) {
      for (FileScanTask t : tasks) {
        if (inputs.contains(t.file().location())) {
          out.put(t.file().location(), t);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private void giveUp(RewriteFileGroup group, String why) {
    failures.put(group, why);
    for (DataFile f : group.addedFiles()) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException ignored) {
        // an uncommitted file we could not remove is an orphan; remove-orphans sweeps it
      }
    }
  }

  private static void pause(int attempt) {
    try {
      // jittered, so a writer committing on a fixed beat does not land inside every attempt
      Thread.sleep(Math.min(500, 20L * attempt * attempt)
          + java.util.concurrent.ThreadLocalRandom.current().nextLong(50));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a compaction commit", e);
    }
  }
}
