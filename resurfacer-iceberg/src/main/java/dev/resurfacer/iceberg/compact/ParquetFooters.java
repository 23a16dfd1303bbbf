package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.io.InputFile;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet footers read through the table's FileIO without a Hadoop {@code Configuration}:
 * {@code ParquetFileReader.open(file)} builds one per call, and parsing its XML defaults for each of
 * a plan's 1,000 input files was most of a 10M-row bin-pack's Java CPU.
 */
final class ParquetFooters {
  private ParquetFooters() {}

  /** The footer with its row groups (what metrics are computed from). */
  static ParquetMetadata full(InputFile file) {
    return read(
        file, ParquetReadOptions.builder(new PlainParquetConfiguration()).build());
  }

  /** The footer without its row groups: the schema and key-value metadata. */
  static ParquetMetadata schemaOnly(InputFile file) {
    return read(
        file,
        ParquetReadOptions.builder(new PlainParquetConfiguration())
            .withMetadataFilter(ParquetMetadataConverter.SKIP_ROW_GROUPS)
            .build());
  }

  /** @param options one per read: a reader may write to its configuration, and reads run on several threads */
  private static ParquetMetadata read(InputFile file, ParquetReadOptions options) {
    try (ParquetFileReader reader = ParquetFileReader.open(parquetFile(file), options)) {
      return reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Parquet footer of " + file.location(), e);
    }
  }

  /**
   * Iceberg's {@link InputFile} as Parquet's: a local file directly (Hadoop's local file system
   * looks for a checksum file and wraps every stream, a millisecond a footer), any other through
   * the table's FileIO.
   */
  static org.apache.parquet.io.InputFile parquetFile(InputFile file) {
    java.nio.file.Path local = PlacedFiles.localPath(file.location());
    if (local != null) {
      return new dev.resurfacer.content.LocalParquetFile(local);
    }
    return new org.apache.parquet.io.InputFile() {
      @Override
      public long getLength() {
        return file.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        org.apache.iceberg.io.SeekableInputStream in = file.newStream();
        return new DelegatingSeekableInputStream(in) {
          @Override
          public long getPos() throws IOException {
            return in.getPos();
          }

          @Override
          public void seek(long newPos) throws IOException {
            in.seek(newPos);
          }
        };
      }
    };
  }
}
