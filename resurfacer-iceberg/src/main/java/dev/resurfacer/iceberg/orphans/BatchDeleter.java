package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.progress.Progress;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;

/** Deletes in batches through the FileIO's bulk API when it has one, else one file at a time. */
final class BatchDeleter {
  static final int DELETE_BATCH = 1000;

  private final FileIO io;
  private final Progress.Task task;
  private final List<Ledger.Listed> batch = new ArrayList<>();
  long deleted;
  long deletedBytes;
  long failed;

  BatchDeleter(FileIO io, Progress.Task task) {
    this.io = io;
    this.task = task;
  }

  void add(Ledger.Listed f) {
    batch.add(f);
    if (batch.size() >= DELETE_BATCH) {
      flush();
    }
  }

  void flush() {
    if (batch.isEmpty()) {
      return;
    }
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(batch.stream().map(Ledger.Listed::location).toList());
        batch.forEach(this::counted);
      } catch (BulkDeletionFailureException e) {
        // which ones failed is not reported, so ask storage
        for (Ledger.Listed f : batch) {
          if (exists(f.location())) {
            failed++;
          } else {
            counted(f);
          }
        }
      }
    } else {
      for (Ledger.Listed f : batch) {
        try {
          io.deleteFile(f.location());
          counted(f);
        } catch (RuntimeException e) {
          failed++;
        }
      }
    }
    task.advance(
        batch.size(), batch.stream().mapToLong(f -> Math.max(0, f.sizeBytes())).sum());
    batch.clear();
  }

  private void counted(Ledger.Listed f) {
    deleted++;
    deletedBytes += f.sizeBytes();
  }

  private boolean exists(String location) {
    try {
      return io.newInputFile(location).exists();
    } catch (RuntimeException e) {
      return true;
    }
  }
}
