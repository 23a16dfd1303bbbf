package dev.resurfacer.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How a table of either format shows on storage, whatever catalog knows it (or none does): a
 * directory holding {@code _delta_log} is a Delta table, one holding {@code metadata/} with
 * {@code version-hint.text} or a {@code *.metadata.json} is an Iceberg table (JDBC, REST and Hadoop
 * catalogs alike). Every delete path's listing asks this of each directory it enters, so a table
 * nested in the scope — of the other format, or one no configured catalog names — is refused, never
 * swept as unreferenced. A SQLite database (a catalog's own state) is recognised by its header.
 */
public final class TableMarkers {
  public enum Format {
    DELTA("a Delta table"),
    ICEBERG("an Iceberg table");

    public final String label;

    Format(String label) {
      this.label = label;
    }
  }

  /** A table found in a listing: its directory as path segments below the listing root (empty: the root itself). */
  public record Found(Format format, List<String> directory) {}

  private static final byte[] SQLITE_HEADER =
      "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  private static final List<String> TABLE_FILE_SUFFIXES = List.of(
      ".parquet", ".avro", ".orc", ".json", ".puffin", ".crc", ".bin", ".text", ".checkpoint");

  private TableMarkers() {}

  /**
   * The tables a local directory holds (both, for a table of one format carrying the other's
   * metadata beside it); links are not followed.
   */
  public static Set<Format> localTables(Path dir) {
    Set<Format> found = EnumSet.noneOf(Format.class);
    if (Files.exists(dir.resolve("_delta_log"), LinkOption.NOFOLLOW_LINKS)) {
      found.add(Format.DELTA);
    }
    Path metadata = dir.resolve("metadata");
    if (!Files.isDirectory(metadata, LinkOption.NOFOLLOW_LINKS)) {
      return found;
    }
    if (Files.exists(metadata.resolve("version-hint.text"), LinkOption.NOFOLLOW_LINKS)) {
      found.add(Format.ICEBERG);
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(metadata)) {
      for (Path f : files) {
        if (isIcebergMetadataName(f.getFileName().toString())) {
          found.add(Format.ICEBERG);
          break;
        }
      }
    } catch (IOException e) {
      found.add(
          Format
              .ICEBERG); // a metadata directory we cannot read may well be a table's: assume it is
    }
    return found;
  }

  /**
   * The table a listed object's key shows, from its path below the listing root ({@code a/_delta_log/x.json}
   * shows a Delta table at {@code a}; {@code metadata/v1.metadata.json} an Iceberg table at the root).
   */
  public static Optional<Found> inKey(String relativeKey) {
    // called for every listed file: most keys hold neither marker, and a scan of the text settles
    // that
    if (!relativeKey.contains("_delta_log") && !relativeKey.contains("metadata")) {
      return Optional.empty();
    }
    String[] segs = relativeKey.split("/");
    for (int i = 0; i < segs.length - 1; i++) {
      if (segs[i].equals("_delta_log")) {
        return Optional.of(new Found(Format.DELTA, List.of(Arrays.copyOf(segs, i))));
      }
      if (segs[i].equals("metadata")
          && i == segs.length - 2
          && isIcebergMetadataName(segs[i + 1])) {
        return Optional.of(new Found(Format.ICEBERG, List.of(Arrays.copyOf(segs, i))));
      }
    }
    return Optional.empty();
  }

  static boolean isIcebergMetadataName(String name) {
    return name.equals("version-hint.text") || name.contains(".metadata.json");
  }

  /**
   * True for a SQLite database or one of its side files ({@code -wal}, {@code -shm}, {@code -journal}
   * beside a database): a catalog's state, never a table file. Names a table writes are not opened.
   */
  public static boolean isDatabase(Path file) {
    String name = file.getFileName().toString();
    for (String side : List.of("-wal", "-shm", "-journal")) {
      if (name.endsWith(side)
          && name.length() > side.length()
          && hasSqliteHeader(
              file.resolveSibling(name.substring(0, name.length() - side.length())))) {
        return true;
      }
    }
    for (String suffix : TABLE_FILE_SUFFIXES) {
      if (name.endsWith(suffix)) {
        return false;
      }
    }
    return hasSqliteHeader(file);
  }

  private static boolean hasSqliteHeader(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      return Arrays.equals(in.readNBytes(SQLITE_HEADER.length), SQLITE_HEADER);
    } catch (IOException e) {
      return true; // unreadable: assume the worst, it is kept
    }
  }
}
