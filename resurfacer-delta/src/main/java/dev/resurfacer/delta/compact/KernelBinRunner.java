package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.kernel.VectorBatch;
import dev.resurfacer.delta.scan.LiveFile;
import io.delta.kernel.Scan;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kernel's own reader and Parquet writer, in the heap: rows stream from reader to writer, except
 * that a z-order bin is held whole to sort it ({@link ZOrder}), so a z-order bin above an eighth
 * of the heap is refused before anything is read.
 */
record KernelBinRunner() implements BinRunner {
  @Override
  public String name() {
    return "kernel";
  }

  @Override
  public List<DataFileStatus> write(BinWork work, CompactionPlan.Bin bin) throws IOException {
    if (!work.zOrderColumns().isEmpty()) {
      refuseBinBeyondHeap(bin);
    }
    Engine engine = work.engine();
    CloseableIterator<FilteredColumnarBatch> logical = liveRows(work, bin);
    if (!work.zOrderColumns().isEmpty()) {
      logical = ZOrder.sorted(logical, work.zOrderColumns());
    }
    var context = Transaction.getWriteContext(engine, work.txnState(), work.partition());
    Engine writer = work.table().storage().writingEngine(work.targetFileSize());
    List<DataFileStatus> written = new ArrayList<>();
    // Kernel's transformLogicalData refuses column-mapped tables; their rows are renamed here instead
    CloseableIterator<FilteredColumnarBatch> physical = work.columnMapped() ? logical.map(b -> physical(b, work.columns()))
        : Transaction.transformLogicalData(engine, work.txnState(), logical, work.partition());
    try (CloseableIterator<DataFileStatus> out = writer.getParquetHandler().writeParquetFiles(context.getTargetDirectory(), physical,
        work.statsColumns())) {
      out.forEachRemaining(written::add);
    } catch (IOException | RuntimeException e) {
      // the compactor deletes what it is handed back; files of a failed write are found here
      DeltaCompactor.deleteQuietly(work.table().storage(), written);
      throw e;
    }
    return written;
  }

  /**
   * A batch of logical rows (partition columns included) as a column-mapped table's data files hold
   * them: the data columns only, under their physical names and Parquet field ids. Nested vectors
   * already carry physical names: Kernel reads the files by the physical schema and renames only
   * the top level.
   */
  static FilteredColumnarBatch physical(FilteredColumnarBatch logical, DataColumns columns) {
    ColumnarBatch data = logical.getData();
    ColumnVector[] vectors = columns.names().stream().map(c -> data.getColumnVector(data.getSchema().indexOf(c)))
        .toArray(ColumnVector[]::new);
    return new FilteredColumnarBatch(new VectorBatch(columns.physical(), vectors, data.getSize()), logical.getSelectionVector());
  }

  /**
   * Kernel's in-heap z-order holds a bin's decoded rows; Parquet expands several times when
   * decoded, so a bin above an eighth of the heap fails before anything is read.
   */
  private static void refuseBinBeyondHeap(CompactionPlan.Bin bin) {
    long bytes = bin.files().stream().mapToLong(LiveFile::size).sum();
    long limit = Runtime.getRuntime().maxMemory() / 8;
    if (bytes > limit) {
      throw new IllegalStateException("z-order of " + bytes + " bytes of Parquet in one partition exceeds what the in-heap Kernel "
          + "runner sorts (" + limit + " bytes, an eighth of the heap); narrow it with --where or give the JVM more heap");
    }
  }

  /** The bin's rows as the table sees them: each file read by Kernel, its deletion vector applied, partition values added. */
  static CloseableIterator<FilteredColumnarBatch> liveRows(BinWork work, CompactionPlan.Bin bin) {
    CloseableIterator<FilteredColumnarBatch> all = KernelIterators.of(List.<FilteredColumnarBatch>of());
    for (LiveFile f : bin.files()) {
      all = all.combine(KernelIterators.of(List.of(f)).flatMap(file -> liveRows(work, file)));
    }
    return all;
  }

  /** One file's rows as the table sees them. */
  static CloseableIterator<FilteredColumnarBatch> liveRows(BinWork work, LiveFile file) {
    StructType physicalRead = KernelInternals.physicalReadSchema(work.scanState());
    return liveRows(work, file, physicalRead, physicalRead);
  }

  /**
   * As {@link #liveRows(BinWork, LiveFile)}, the file read by {@code readSchema}, which may read
   * strings as binary: its batches are labelled with {@code physicalRead} again (Kernel requires its
   * own schema), while the vectors keep their binary type.
   */
  private static CloseableIterator<FilteredColumnarBatch> liveRows(BinWork work, LiveFile file, StructType readSchema,
      StructType physicalRead) {
    Engine engine = work.engine();
    Row scanFile = work.scanFiles().get(file.logPath());
    try {
      CloseableIterator<ColumnarBatch> physical = engine.getParquetHandler()
          .readParquetFiles(KernelIterators.of(List.of(FileStatus.of(work.table().storage().kernelPath(file.file()), file.size(),
              file.modificationTime()))), readSchema, Optional.empty())
          .map(FileReadResult::getData);
      if (!readSchema.equals(physicalRead)) {
        physical = physical.map(b -> new VectorBatch(physicalRead,
            java.util.stream.IntStream.range(0, b.getSchema().length()).mapToObj(b::getColumnVector).toArray(ColumnVector[]::new),
            b.getSize()));
      }
      return Scan.transformPhysicalData(engine, work.scanState(), scanFile, physical);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fingerprint of one input file's live rows, as Kernel reads them. */
  static ContentFingerprint.Value fingerprint(BinWork work, LiveFile file) {
    ContentFingerprint print = new ContentFingerprint();
    StructType physicalRead = KernelInternals.physicalReadSchema(work.scanState());
    try (CloseableIterator<FilteredColumnarBatch> rows = liveRows(work, file, ContentFingerprint.stringsAsBinary(physicalRead),
        physicalRead)) {
      rows.forEachRemaining(b -> print.add(b.getData(), b.getSelectionVector(), work.columns().names()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return print.value();
  }
}
