package dev.resurfacer.delta.table;

import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Optional;

/**
 * Where one Delta table's files live: the local disk, an S3 bucket or an Azure container. Every file is named by its
 * {@link StoredFile} identity (what listings and log references are compared on); Kernel gets its own
 * spelling through {@link #kernelPath}. Listings never follow links, deletes never leave the table.
 */
public sealed interface TableStorage extends AutoCloseable permits LocalStorage, ObjectStorage {

  /** A stored file and what a listing or stat reports of it. */
  record Entry(StoredFile file, long size, long modificationTime) {}

  /** The files vacuum may consider: regular files outside hidden names, and links found (never followed). */
  record Listing(List<Entry> files, List<StoredFile> symlinks) {
    public Listing {
      files = List.copyOf(files);
      symlinks = List.copyOf(symlinks);
    }
  }

  /** The table root's identity (for local tables, its real path). */
  StoredFile root();

  /** The root as Kernel addresses it, with a trailing slash. */
  String kernelRoot();

  /** The root as a URI that the table's data file URIs are relative to (for the log's relative paths). */
  java.net.URI rootUri();

  /** A Kernel engine reading and writing this storage. */
  Engine engine();

  /** An engine whose Parquet writer rolls to a new file at about {@code targetFileSize} bytes. */
  Engine writingEngine(long targetFileSize);

  /**
   * The file a log entry's {@code path} (or a {@code p} deletion vector's) names — relative ones
   * URL-encoded against the root, absolute ones URIs — as the file Delta's readers open; a path on
   * other storage is refused. The first of {@link #resolveAll}.
   */
  default StoredFile resolve(String logPath) {
    return resolveAll(logPath).get(0);
  }

  /**
   * Every identity the log path can have (see {@link StoredFile.Resolver#resolveAllOnDisk}): one,
   * except on local disk where a {@code ..} after a link names two files, the readers' first. Vacuum
   * keeps both.
   */
  List<StoredFile> resolveAll(String logPath);

  /** The file a Kernel path (unescaped, as Kernel's writers report them) names. */
  StoredFile fromKernelPath(String kernelPath);

  String kernelPath(StoredFile file);

  default StoredFile logDir() {
    return child(root(), "_delta_log");
  }

  /** Every regular file under {@code _delta_log}, sidecars included. */
  List<Entry> listLog() throws IOException;

  /** The table's files for vacuum (see {@code TableListing}); refusals as {@link dev.resurfacer.SafetyRefusal}. */
  Listing listForVacuum(List<String> partitionColumns);

  /**
   * Every stored object under the root outside {@code _delta_log}, hidden names included and links
   * listed as what they are (never followed): what an outside engine's own vacuum could reach.
   */
  List<Entry> listOutsideLog() throws IOException;

  /** The regular file now at {@code file} (a link or a directory is not one), or empty when there is none. */
  Optional<Entry> stat(StoredFile file) throws IOException;

  void delete(StoredFile file) throws IOException;

  /** Creates {@code file} with {@code content} unless it exists ({@link FileAlreadyExistsException}); readers never see it half-written. */
  void createIfAbsent(StoredFile file, byte[] content) throws IOException;

  /** The regular files directly in {@code dir}. */
  List<Entry> listDirectory(StoredFile dir) throws IOException;

  /** The content of {@code file}, or empty when it is gone. */
  Optional<String> read(StoredFile file) throws IOException;

  /**
   * Refuses (one-line usage error) when log entries on this storage cannot be created safely against
   * concurrent writers and the owner did not declare a single writer. Local storage always can.
   */
  void requireSafeCommits();

  /** True for a file strictly below the table's root. */
  default boolean inside(StoredFile file) {
    return root().contains(file) && !root().equals(file);
  }

  default StoredFile child(StoredFile dir, String name) {
    return new StoredFile(
        dir.scheme(), dir.authority(), (dir.path().equals("/") ? "" : dir.path()) + "/" + name);
  }

  /** The last segment of a stored file's path. */
  static String name(StoredFile file) {
    return file.path().substring(file.path().lastIndexOf('/') + 1);
  }

  @Override
  void close();
}
