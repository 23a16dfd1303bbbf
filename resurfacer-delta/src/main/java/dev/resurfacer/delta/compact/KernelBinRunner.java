package dev.resurfacer.delta.compact;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.kernel.VectorBatch;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.Scan;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;

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
    if (work.columnMapped() && !ParquetFieldIds.kernelWrites(work.columns().written())) {
      StructType withoutIds = ParquetFieldIds.withoutIds(work.columns().written());
      return writeThenSetFieldIds(
          work,
          logical.map(b -> physical(b, work.columns(), withoutIds)),
          context.getTargetDirectory());
    }
    Engine writer = work.table().storage().writingEngine(work.targetFileSize());
    List<DataFileStatus> written = new ArrayList<>();
    // Kernel's transformLogicalData refuses column-mapped tables; their rows are renamed here
    // instead
    CloseableIterator<FilteredColumnarBatch> physical = work.columnMapped()
        ? logical.map(b -> physical(b, work.columns(), work.columns().written()))
        : Transaction.transformLogicalData(engine, work.txnState(), logical, work.partition());
    try (CloseableIterator<DataFileStatus> out = writer
        .getParquetHandler()
        .writeParquetFiles(context.getTargetDirectory(), physical, work.statsColumns())) {
      out.forEachRemaining(written::add);
    } catch (IOException | RuntimeException e) {
      // the compactor deletes what it is handed back; files of a failed write are found here
      DeltaCompactor.deleteQuietly(work.table().storage(), written);
      throw Failures.writing(context.getTargetDirectory(), e);
    }
    return written;
  }

  /**
   * A column-mapped table whose lists or maps have no nested field ids: delta-spark's files carry
   * ids on every struct field but none on a list's element or a map's key and value, a mix Kernel's
   * writer refuses. Kernel writes the files without ids into the scratch directory, each footer then
   * gets the ids ({@link ParquetFieldIds}), and the file moves (or, on S3, is uploaded) into the
   * partition directory; its stats are the ones Kernel's writer read from it.
   */
  private static List<DataFileStatus> writeThenSetFieldIds(
      BinWork work, CloseableIterator<FilteredColumnarBatch> physical, String targetDirectory)
      throws IOException {
    Files.createDirectories(work.options().scratchDir());
    Path scratch = Files.createTempDirectory(work.options().scratchDir(), "delta-bin-");
    TableStorage storage = work.table().storage();
    StoredFile target = storage.fromKernelPath(targetDirectory);
    List<DataFileStatus> placed = new ArrayList<>();
    Configuration conf = DeltaTables.hadoopConf();
    conf.setLong(DeltaTables.TARGET_FILE_SIZE, work.targetFileSize());
    try (CloseableIterator<DataFileStatus> out = DefaultEngine.create(conf)
        .getParquetHandler()
        .writeParquetFiles(LocalStorage.kernelSpelling(scratch), physical, work.statsColumns())) {
      int i = 0;
      while (out.hasNext()) {
        DataFileStatus local = out.next();
        Path file = LocalStorage.fromKernelSpelling(local.getPath());
        try {
          ParquetFieldIds.apply(file, work.columns().written());
        } catch (IOException | RuntimeException e) {
          throw new IOException(
              "setting the field ids of a new file of the bin: " + Failures.oneLine(e), e);
        }
        StoredFile stored = storage.child(
            target,
            String.format(Locale.ROOT, "part-%05d-%s-c000.snappy.parquet", i++, UUID.randomUUID()));
        if (storage instanceof ObjectStorage remote) {
          remote.upload(stored, file);
        } else {
          Path to = LocalStorage.path(stored);
          Files.createDirectories(to.getParent());
          Files.move(file, to);
        }
        var entry = storage
            .stat(stored)
            .orElseThrow(
                () -> new IOException("new file " + stored + " is not there after writing it"));
        placed.add(new DataFileStatus(
            storage.kernelPath(stored),
            entry.size(),
            entry.modificationTime(),
            local.getStatistics()));
      }
    } catch (IOException | RuntimeException e) {
      DeltaCompactor.deleteQuietly(storage, placed);
      throw Failures.writing(targetDirectory, e);
    } finally {
      DuckDbBinRunner.deleteRecursively(scratch);
    }
    return placed;
  }

  /**
   * A batch of logical rows (partition columns included) as a column-mapped table's data files hold
   * them: the data columns, then any materialized partition columns ({@link DataColumns#written}),
   * under their physical names (with or without Parquet field ids, as {@code schema} has them). Nested vectors
   * already carry physical names: Kernel reads the files by the physical schema and renames only
   * the top level.
   */
  static FilteredColumnarBatch physical(
      FilteredColumnarBatch logical, DataColumns columns, StructType schema) {
    ColumnarBatch data = logical.getData();
    ColumnVector[] vectors = columns.writtenNames().stream()
        .map(c -> data.getColumnVector(data.getSchema().indexOf(c)))
        .toArray(ColumnVector[]::new);
    return new FilteredColumnarBatch(
        new VectorBatch(schema, vectors, data.getSize()), logical.getSelectionVector());
  }

  /**
   * Kernel's in-heap z-order holds a bin's decoded rows; Parquet expands several times when
   * decoded, so a bin above an eighth of the heap fails before anything is read.
   */
  private static void refuseBinBeyondHeap(CompactionPlan.Bin bin) {
    long bytes = bin.files().stream().mapToLong(LiveFile::size).sum();
    long limit = Runtime.getRuntime().maxMemory() / 8;
    if (bytes > limit) {
      throw new IllegalStateException("z-order of " + bytes
          + " bytes of Parquet in one partition exceeds what the in-heap Kernel " + "runner sorts ("
          + limit
          + " bytes, an eighth of the heap); narrow it with --where or give the JVM more heap");
    }
  }

  /** The bin's rows as the table sees them: each file read by Kernel, its deletion vector applied, partition values added. */
  static CloseableIterator<FilteredColumnarBatch> liveRows(BinWork work, CompactionPlan.Bin bin) {
    CloseableIterator<FilteredColumnarBatch> all =
        KernelIterators.of(List.<FilteredColumnarBatch>of());
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
  static CloseableIterator<FilteredColumnarBatch> liveRows(
      BinWork work, LiveFile file, StructType readSchema, StructType physicalRead) {
    Engine engine = work.engine();
    Row scanFile = work.scanFiles().get(file.logPath());
    try {
      CloseableIterator<ColumnarBatch> physical = engine
          .getParquetHandler()
          .readParquetFiles(
              KernelIterators.of(List.of(FileStatus.of(
                  work.table().storage().kernelPath(file.file()),
                  file.size(),
                  file.modificationTime()))),
              readSchema,
              Optional.empty())
          .map(FileReadResult::getData);
      if (!readSchema.equals(physicalRead)) {
        physical = physical.map(b -> new VectorBatch(
            physicalRead,
            java.util.stream.IntStream.range(0, b.getSchema().length())
                .mapToObj(b::getColumnVector)
                .toArray(ColumnVector[]::new),
            b.getSize()));
      }
      return Failures.naming(
          file.logPath(), Scan.transformPhysicalData(engine, work.scanState(), scanFile, physical));
    } catch (IOException | RuntimeException e) {
      throw Failures.reading(file.logPath(), e);
    }
  }

  /** The fingerprint of one input file's live rows, as Kernel reads them: from its pages where they can be read exactly. */
  static RowDigest fingerprint(BinWork work, LiveFile file) {
    return ColumnarFingerprint.ofInput(work, file).orElseGet(() -> kernelFingerprint(work, file));
  }

  /** {@link #fingerprint} by Kernel's reader, one value at a time. */
  static RowDigest kernelFingerprint(BinWork work, LiveFile file) {
    ContentFingerprint print =
        new ContentFingerprint(work.columns().writtenNames().size());
    StructType physicalRead = KernelInternals.physicalReadSchema(work.scanState());
    try (CloseableIterator<FilteredColumnarBatch> rows =
        liveRows(work, file, ContentFingerprint.stringsAsBinary(physicalRead), physicalRead)) {
      rows.forEachRemaining(
          b -> print.add(b.getData(), b.getSelectionVector(), work.columns().writtenNames()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return print.value();
  }
}
