package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetUtil;

/**
 * Moves files between the table's storage and local scratch space. All remote I/O goes through the
 * table's FileIO, so DuckDB only ever sees local paths and credentials stay in one place.
 */
final class PlacedFiles {
  private PlacedFiles() {}

  /**
   * The local path of a table location, or null when it is remote. Iceberg locations are not URIs:
   * Hadoop's file system takes the characters after the scheme literally, so a space or an escaped
   * partition value ({@code cat=a%3Ab}) names exactly that file and must not be URI-decoded.
   */
  static Path localPath(String location) {
    if (location.startsWith("file:")) {
      String rest = location.substring("file:".length());
      if (rest.startsWith("//")) {
        rest = rest.substring(2);
        if (rest.startsWith("localhost/")) {
          rest = rest.substring("localhost".length());
        }
      }
      return rest.startsWith("/") ? Path.of(rest) : null;
    }
    if (location.startsWith("/")) {
      return Path.of(location);
    }
    return null;
  }

  /** A local copy of a table file: the file itself when local, else a download into {@code dir}. */
  static Path stage(Table table, String location, Path dir) throws IOException {
    Path local = localPath(location);
    if (local != null) {
      return local;
    }
    Path target = dir.resolve("in-" + UUID.randomUUID() + fileName(location));
    try (InputStream in = table.io().newInputFile(location).newStream()) {
      Files.copy(in, target);
    }
    return target;
  }

  /** Moves a finished local Parquet file to a new data location of the table and describes it from its footer. */
  static DataFile place(
      Table table,
      PartitionSpec spec,
      StructLike partition,
      org.apache.iceberg.SortOrder order,
      Path file)
      throws IOException {
    String name = "resurfacer-" + UUID.randomUUID() + ".parquet";
    String planned = spec.isUnpartitioned()
        ? table.locationProvider().newDataLocation(name)
        : table.locationProvider().newDataLocation(spec, partition, name);
    // spelled as the table's FileIO spells it, which is what Iceberg's own writers (and the generic
    // runner) record: one table never mixes file:/x and file:///x for its files
    String location = table.io().newOutputFile(planned).location();
    Path local = localPath(location);
    if (local != null) {
      Files.createDirectories(local.getParent());
      Files.move(file, local, StandardCopyOption.REPLACE_EXISTING);
    } else {
      try (InputStream in = Files.newInputStream(file);
          OutputStream out = table.io().newOutputFile(location).create()) {
        in.transferTo(out);
      }
      Files.delete(file);
    }
    InputFile in = table.io().newInputFile(location);
    Metrics metrics = ParquetUtil.footerMetrics(
        ParquetFooters.full(in), java.util.stream.Stream.empty(), MetricsConfig.forTable(table));
    return DataFiles.builder(spec)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(in.getLength())
        .withPartition(spec.isUnpartitioned() ? null : partition)
        .withMetrics(metrics)
        .withSortOrder(order == null ? org.apache.iceberg.SortOrder.unsorted() : order)
        .build();
  }

  private static String fileName(String location) {
    int slash = location.lastIndexOf('/');
    return "-" + location.substring(slash + 1);
  }
}
