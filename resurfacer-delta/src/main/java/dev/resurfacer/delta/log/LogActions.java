package dev.resurfacer.delta.log;

import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** The actions of one JSON commit, read by Kernel's JSON reader with the schema of the actions asked for. */
public final class LogActions {
  private LogActions() {}

  /** Calls {@code action} with each line's struct of {@code schema}'s single field, skipping lines without it. */
  static void read(DeltaTable table, LogFile commit, StructType schema, Consumer<Row> action) {
    lines(table, commit, schema, line -> {
      if (!line.isNullAt(0)) {
        action.accept(line.getStruct(0));
      }
    });
  }

  /** Calls {@code line} with each line of the commit read as {@code schema} (one nullable struct per action kind). */
  public static void lines(
      DeltaTable table, LogFile commit, StructType schema, Consumer<Row> line) {
    FileStatus status = FileStatus.of(
        table.storage().kernelPath(commit.path()), commit.size(), commit.modificationTime());
    try (CloseableIterator<ColumnarBatch> batches = table
        .engine()
        .getJsonHandler()
        .readJsonFiles(KernelIterators.of(List.of(status)), schema, Optional.empty())) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          rows.forEachRemaining(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read commit " + commit.path(), e);
    }
  }
}
