package dev.resurfacer.iceberg.deletes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes deletion vectors with Iceberg core's {@link BaseDVFileWriter}, rolling to a new Puffin file
 * every {@link #DATA_FILES_PER_PUFFIN} data files so the vectors held before a write stay bounded.
 * Callers hand it the complete vector of each data file (already merged with whatever applied before).
 */
final class DeletionVectors implements AutoCloseable {
  static final int DATA_FILES_PER_PUFFIN = 1_000;

  private final OutputFileFactory files;
  private final List<DeleteFile> written = new ArrayList<>();
  private BaseDVFileWriter writer;
  private int inWriter;

  DeletionVectors(Table table) {
    this.files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PUFFIN)
        .build();
  }

  void write(
      String dataFile, PositionDeleteIndex positions, PartitionSpec spec, StructLike partition) {
    if (writer == null) {
      writer = new BaseDVFileWriter(files, path -> null);
    }
    writer.delete(dataFile, positions, spec, spec.isUnpartitioned() ? null : partition);
    if (++inWriter >= DATA_FILES_PER_PUFFIN) {
      flush();
    }
  }

  /** Every vector written so far, one {@link DeleteFile} per data file. */
  List<DeleteFile> written() {
    flush();
    return List.copyOf(written);
  }

  private void flush() {
    if (writer == null) {
      return;
    }
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    written.addAll(writer.result().deleteFiles());
    writer = null;
    inWriter = 0;
  }

  @Override
  public void close() {
    flush();
  }
}
