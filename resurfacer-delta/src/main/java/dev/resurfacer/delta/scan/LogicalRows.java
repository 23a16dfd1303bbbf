package dev.resurfacer.delta.scan;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The rows of one table version as Delta Kernel reads them: deletion vectors applied, partition
 * values filled in, column-mapped names logical. One file at a time, so memory stays one batch. What
 * another engine's result is compared against.
 */
public final class LogicalRows {
  private LogicalRows() {}

  /** Calls {@code row} with each live row of {@code snapshot}. */
  public static void forEach(DeltaTable t, Snapshot snapshot, Consumer<Row> row) {
    Scan scan = snapshot.getScanBuilder().build();
    Row scanState = scan.getScanState(t.engine());
    StructType physical = KernelInternals.physicalReadSchema(scanState);
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(t.engine())) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
          while (scanFiles.hasNext()) {
            Row scanFile = scanFiles.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            // the log's path is URI-escaped; Kernel reads a file by its stored name
            FileStatus status = FileStatus.of(
                t.storage()
                    .kernelPath(
                        t.storage().resolve(add.getString(add.getSchema().indexOf("path")))),
                add.getLong(add.getSchema().indexOf("size")),
                0);
            CloseableIterator<ColumnarBatch> data = t.engine()
                .getParquetHandler()
                .readParquetFiles(KernelIterators.of(List.of(status)), physical, Optional.empty())
                .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(t.engine(), scanState, scanFile, data)) {
              while (logical.hasNext()) {
                try (CloseableIterator<Row> rows = logical.next().getRows()) {
                  rows.forEachRemaining(row);
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read " + t.name() + " at version " + snapshot.getVersion(), e);
    }
  }
}
