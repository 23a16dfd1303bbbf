package dev.resurfacer.iceberg.deletes;

import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/** Commits a delete-file change; a commit that certainly failed deletes the files it wrote, so none is stranded. */
final class Commits {
  private Commits() {}

  static void commitOrDelete(Table table, SnapshotUpdate<?> update, List<? extends ContentFile<?>> written) {
    try {
      update.commit();
    } catch (CommitStateUnknownException e) {
      // the commit may have landed: its files may be live, so none is deleted
      throw e;
    } catch (RuntimeException e) {
      for (String location : written.stream().map(ContentFile::location).distinct().toList()) {
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
