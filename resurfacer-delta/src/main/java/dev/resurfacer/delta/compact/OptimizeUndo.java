package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.log.CommitInfos;
import dev.resurfacer.delta.log.CommitInfos.CommitInfo;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogActions;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Takes back one version that only moved rows between files (an {@code OPTIMIZE} whose content
 * check failed) with a Kernel commit: every file the version added removed, every file it removed
 * added back as the log held it (stats, partition values, deletion vector), all with
 * {@code dataChange=false}, so the next version holds exactly the parent's files. The commit is made
 * only on exactly that version: refused when anything landed after it, and committed with no retry,
 * so a commit landing meanwhile fails ours (put-if-absent of the next log entry) instead of being
 * reverted along with it, as delta-spark's {@code RESTORE} would.
 */
public final class OptimizeUndo {
  /** The operation our commit names in {@code commitInfo}: it restores the parent's file set. */
  public static final String OPERATION = "RESTORE";

  private static final StructType ACTIONS = new StructType()
      .add(
          "add",
          new StructType().add("path", StringType.STRING).add("dataChange", BooleanType.BOOLEAN))
      .add(
          "remove",
          new StructType().add("path", StringType.STRING).add("dataChange", BooleanType.BOOLEAN))
      .add("metaData", new StructType().add("id", StringType.STRING))
      .add("protocol", new StructType().add("minReaderVersion", IntegerType.INTEGER))
      .add("domainMetadata", new StructType().add("domain", StringType.STRING))
      .add("cdc", new StructType().add("path", StringType.STRING));

  private OptimizeUndo() {}

  /** What became of the undo. */
  public sealed interface Outcome permits Undone, Refused {
    long undone();

    /** One line for the step's message. */
    String describe();
  }

  /** Committed: {@code version} holds the files of {@code undone - 1}. */
  public record Undone(long undone, long version, int removedFiles, int restoredFiles)
      implements Outcome {
    @Override
    public String describe() {
      return "undone: version " + version + " (Delta Kernel, made only on version " + undone
          + ") holds version " + (undone - 1) + "'s files again (" + removedFiles + " removed, "
          + restoredFiles + " restored)";
    }
  }

  /** Nothing committed by us. */
  public record Refused(long undone, String reason) implements Outcome {
    @Override
    public String describe() {
      return "not undone: " + reason;
    }
  }

  public static Outcome undo(DeltaTable table, long version, Clock clock) {
    return undo(table, version, clock, () -> {});
  }

  /** {@code beforeCommit} runs once the actions are built, just before the commit: tests land another writer's commit there. */
  static Outcome undo(DeltaTable table, long version, Clock clock, Runnable beforeCommit) {
    if (version < 1) {
      return new Refused(version, "version " + version + " has no parent");
    }
    Engine engine = table.engine();
    Map<String, String> metrics = new LinkedHashMap<>();
    Snapshot newest = TableManager.loadSnapshot(table.uri())
        .withCommitter(KernelInternals.committerNaming(
            OPERATION,
            Map.of(
                "version", String.valueOf(version - 1), "undoneVersion", String.valueOf(version)),
            () -> metrics))
        .build(engine);
    if (newest.getVersion() < version) {
      return new Refused(
          version,
          "the table's newest version is " + newest.getVersion() + ", before version " + version);
    }
    if (newest.getVersion() > version) {
      return new Refused(
          version,
          landedAfter(table, version, newest.getVersion()) + " after version " + version
              + "; undoing it now would take theirs back too: nothing changed, inspect them and undo version "
              + version + " by hand");
    }
    Optional<LogFile> commit = DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() == version)
        .findFirst();
    if (commit.isEmpty()) {
      return new Refused(version, "the log holds no commit file for version " + version);
    }
    List<CommitInfo> info = commitInfos(table, version, version);
    if (info.isEmpty() || !info.get(0).operation().equals("OPTIMIZE")) {
      return new Refused(
          version,
          "version " + version + " is not an OPTIMIZE ("
              + (info.isEmpty() ? "no commitInfo" : info.get(0).operation())
              + "): only a rewrite OPTIMIZE committed is undone here");
    }
    Set<StoredFile> added = new HashSet<>();
    Set<StoredFile> removed = new HashSet<>();
    List<String> unlike = new ArrayList<>();
    LogActions.lines(table, commit.get(), ACTIONS, line -> {
      for (int i = 0; i < 2; i++) {
        if (!line.isNullAt(i)) {
          Row file = line.getStruct(i);
          if (file.isNullAt(1) || file.getBoolean(1)) {
            unlike.add("a data change (" + (i == 0 ? "add " : "remove ") + file.getString(0) + ")");
          }
          (i == 0 ? added : removed).add(table.storage().resolve(file.getString(0)));
        }
      }
      for (int i = 2; i < ACTIONS.length(); i++) {
        if (!line.isNullAt(i)) {
          unlike.add("a " + ACTIONS.at(i).getName() + " action");
        }
      }
    });
    if (!unlike.isEmpty()) {
      return new Refused(
          version,
          "version " + version + " is not a rewrite that only moved rows: it holds "
              + unlike.get(0));
    }
    if (added.stream().anyMatch(removed::contains)) {
      return new Refused(
          version,
          "version " + version
              + " removes and adds the same file (a new deletion vector), which OPTIMIZE never does");
    }
    if (!addStructs(table, table.atVersion(version - 1), added).isEmpty()) {
      return new Refused(
          version,
          "version " + version
              + " re-adds a file that was already live before it: removing it would lose"
              + " its rows");
    }
    Map<StoredFile, Row> addedNow = addStructs(table, newest, added);
    Map<StoredFile, Row> removedBefore = addStructs(table, table.atVersion(version - 1), removed);
    if (addedNow.size() != added.size() || removedBefore.size() != removed.size()) {
      return new Refused(
          version,
          "the files version " + version
              + " added are not all live in it, or those it removed were not all"
              + " live in version " + (version - 1));
    }
    Optional<String> gone = firstMissing(table, removedBefore.values());
    if (gone.isPresent()) {
      return new Refused(
          version,
          gone.get() + ", which version " + version
              + " removed, is gone from storage (vacuumed?): bringing it back"
              + " would reference a missing file");
    }
    table.storage().requireSafeCommits();
    long now = clock.millis();
    List<Row> actions = new ArrayList<>();
    long removedBytes = 0, restoredBytes = 0;
    for (Row add : addedNow.values()) {
      actions.add(KernelInternals.removeWithoutDataChange(add, now));
      removedBytes += add.getLong(add.getSchema().indexOf("size"));
    }
    // dataChange=false as in the version undone: readers that skipped it (streams) never saw its
    // change
    for (Row add : removedBefore.values()) {
      actions.add(KernelInternals.readdWithoutDataChange(add));
      restoredBytes += add.getLong(add.getSchema().indexOf("size"));
    }
    metrics.put("numRemovedFiles", String.valueOf(addedNow.size()));
    metrics.put("numRestoredFiles", String.valueOf(removedBefore.size()));
    metrics.put("removedFilesSize", String.valueOf(removedBytes));
    metrics.put("restoredFilesSize", String.valueOf(restoredBytes));
    beforeCommit.run();
    try {
      // no retry: Kernel would rebase ours onto a commit that landed meanwhile, one nobody checked
      // against the undo; failing leaves that commit standing and the table as that writer left it
      Transaction txn = newest
          .buildUpdateTableTransaction(DeltaCompactor.ENGINE_INFO, Operation.MANUAL_UPDATE)
          .withMaxRetries(0)
          .build(engine);
      long committed = txn.commit(
              engine, CloseableIterable.inMemoryIterable(KernelIterators.of(actions)))
          .getVersion();
      return new Undone(version, committed, addedNow.size(), removedBefore.size());
    } catch (RuntimeException e) {
      return afterFailedCommit(table, version, addedNow.size(), removedBefore.size(), e);
    }
  }

  /**
   * A failed commit may still have landed (a lost reply); otherwise whatever took version + 1 is
   * named, and it stands.
   */
  private static Outcome afterFailedCommit(
      DeltaTable table, long version, int removed, int restored, RuntimeException failure) {
    long newest = table.latest().getVersion();
    if (newest == version) {
      return new Refused(
          version, "the commit failed (" + failure.getMessage() + "); nothing changed");
    }
    List<CommitInfo> next = commitInfos(table, version + 1, version + 1);
    if (!next.isEmpty()
        && next.get(0).operation().equals(OPERATION)
        && next.get(0).engineInfo().contains(DeltaCompactor.ENGINE_INFO)) {
      return new Undone(version, version + 1, removed, restored);
    }
    return new Refused(
        version,
        landedAfter(table, version, newest) + " while it was being undone; our commit failed"
            + " (no retry) and theirs stands: inspect them and undo version " + version
            + " by hand");
  }

  /** "version(s) 8 (WRITE by Apache-Spark/…), 9 (…) landed", for the versions after {@code version} up to {@code newest}. */
  private static String landedAfter(DeltaTable table, long version, long newest) {
    String named = commitInfos(table, version + 1, newest).stream()
        .map(c -> c.version() + " (" + (c.operation().isEmpty() ? "?" : c.operation())
            + (c.engineInfo().isEmpty() ? "" : " by " + c.engineInfo()) + ")")
        .collect(Collectors.joining(", "));
    return "version(s) " + (named.isEmpty() ? (version + 1) + ".." + newest : named) + " landed";
  }

  private static List<CommitInfo> commitInfos(DeltaTable table, long from, long to) {
    return CommitInfos.read(
        table,
        DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT).stream()
            .filter(c -> c.version() >= from && c.version() <= to)
            .toList());
  }

  /** The {@code add} structs (stats included) of the snapshot's live files among {@code wanted}. */
  private static Map<StoredFile, Row> addStructs(
      DeltaTable table, Snapshot snapshot, Set<StoredFile> wanted) {
    Map<StoredFile, Row> out = new HashMap<>();
    try (CloseableIterator<FilteredColumnarBatch> batches =
        snapshot.getScanBuilder().build().getScanFiles(table.engine(), true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            Row scanFile = rows.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            StoredFile file =
                table.storage().resolve(add.getString(add.getSchema().indexOf("path")));
            if (wanted.contains(file)) {
              out.put(file, add);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the file list of " + table.name() + " at version " + snapshot.getVersion(),
          e);
    }
    return out;
  }

  /** The first data file or deletion vector file among {@code adds} that storage no longer holds. */
  private static Optional<String> firstMissing(DeltaTable table, Iterable<Row> adds) {
    try {
      for (Row add : adds) {
        List<StoredFile> files = new ArrayList<>();
        files.add(table.storage().resolve(add.getString(add.getSchema().indexOf("path"))));
        DeletionVectorRef.of(add, add.getSchema().indexOf("deletionVector"), table.storage())
            .flatMap(DeletionVectorRef::file)
            .ifPresent(files::add);
        for (StoredFile f : files) {
          if (table.storage().stat(f).isEmpty()) {
            return Optional.of(f.toString());
          }
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot check the files to restore in " + table.name(), e);
    }
  }
}
