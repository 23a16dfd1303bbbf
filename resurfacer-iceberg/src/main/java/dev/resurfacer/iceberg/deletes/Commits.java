package dev.resurfacer.iceberg.deletes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expressions;

/** What the delete conversions share: their inputs, their validated commit, and clean-up of a commit that certainly failed. */
final class Commits {
  private Commits() {}

  /**
   * A row delta that fails unless, since {@code baseSnapshotId}, the referenced data files are still
   * there, the delete files it removes are still there, and no delete file or deletion vector was added.
   */
  static RowDelta validatedDelta(
      Table table, long baseSnapshotId, List<String> referencedDataFiles) {
    return table
        .newRowDelta()
        .validateFromSnapshot(baseSnapshotId)
        .conflictDetectionFilter(Expressions.alwaysTrue())
        .validateDataFilesExist(referencedDataFiles)
        .validateDeletedFiles()
        .validateNoConflictingDeleteFiles();
  }

  /**
   * Commits the delete files {@code written} in place of {@code replaced}, validated as {@link #validatedDelta}
   * says ({@code beforeCommit} runs just before), deleting {@code written} when the commit certainly failed; then
   * the table is refreshed to the snapshot it made.
   *
   * @return the snapshot the commit made
   */
  static long replaceDeletes(
      Table table,
      long baseSnapshotId,
      List<String> referencedDataFiles,
      List<DeleteFile> written,
      List<DeleteFile> replaced,
      Runnable beforeCommit) {
    RowDelta delta = validatedDelta(table, baseSnapshotId, referencedDataFiles);
    written.forEach(delta::addDeletes);
    replaced.forEach(delta::removeDeletes);
    beforeCommit.run();
    commitOrDelete(table, delta, written);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** The live delete files of {@code snapshot} that {@code wanted} accepts, once each. */
  static List<DeleteFile> liveDeleteFiles(
      Table table, Snapshot snapshot, Predicate<DeleteFile> wanted) {
    Map<String, DeleteFile> out = new LinkedHashMap<>();
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          if (wanted.test(file)) {
            out.putIfAbsent(file.location(), file.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new ArrayList<>(out.values());
  }

  static void commitOrDelete(
      Table table, SnapshotUpdate<?> update, List<? extends ContentFile<?>> written) {
    try {
      update.commit();
    } catch (CommitStateUnknownException e) {
      // the commit may have landed: its files may be live, so none is deleted
      throw e;
    } catch (RuntimeException e) {
      if (!(e instanceof org.apache.iceberg.exceptions.CleanableFailure)) {
        // only a failure Iceberg itself would clean up after is certain not to have landed; a lost
        // connection or an interrupted commit may have, and then these files are live
        throw e;
      }
      for (String location :
          written.stream().map(ContentFile::location).distinct().toList()) {
        try {
          table.io().deleteFile(location);
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }
}
