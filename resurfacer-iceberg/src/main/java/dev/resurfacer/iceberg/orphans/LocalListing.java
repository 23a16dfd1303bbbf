package dev.resurfacer.iceberg.orphans;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Lists a local-disk prefix of a {@link HadoopFileIO} with java.nio instead of the FileIO's
 * {@code listPrefix}. Hadoop's {@code RawLocalFileSystem.listFiles} builds a {@code LocatedFileStatus}
 * per file, which loads its permissions, and without the native Hadoop library that forks
 * {@code ls -ld} once per file: about 5 ms a file, hours for a million. The result is the same
 * entries Hadoop lists: location {@code file:/abs/path}, length, modification time, and (on the
 * default checksummed {@code LocalFileSystem}) no {@code .name.crc} sidecars.
 */
final class LocalListing {
  private LocalListing() {}

  /**
   * Lists {@code prefix} into {@code sink} and returns true when it is a local path of a
   * HadoopFileIO; returns false (nothing listed) when the FileIO's own listing must be used.
   */
  static boolean listIfLocal(SupportsPrefixOperations lister, String prefix, StorageUri root, Consumer<FileInfo> sink) {
    if (!(lister instanceof HadoopFileIO hadoop) || !"file".equals(root.scheme()) || !root.authority().isEmpty()) {
      return false;
    }
    FileSystem fs;
    try {
      fs = new org.apache.hadoop.fs.Path(prefix).getFileSystem(hadoop.conf());
    } catch (IOException e) {
      return false;
    }
    boolean hideChecksums;
    if (fs instanceof ChecksumFileSystem checksummed && checksummed.getRawFileSystem() instanceof RawLocalFileSystem) {
      hideChecksums = true;
    } else if (fs instanceof RawLocalFileSystem) {
      hideChecksums = false;
    } else {
      return false; // some other file: implementation; let it list itself
    }
    walk(Path.of(root.path()), hideChecksums, sink);
    return true;
  }

  static void walk(Path dir, boolean hideChecksums, Consumer<FileInfo> sink) {
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isDirectory()) {
            return FileVisitResult.CONTINUE;
          }
          String name = file.getFileName().toString();
          if (hideChecksums && name.startsWith(".") && name.endsWith(".crc")) {
            return FileVisitResult.CONTINUE;
          }
          sink.accept(new FileInfo("file:" + file.toAbsolutePath(), attrs.size(), attrs.lastModifiedTime().toMillis()));
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      FileNotFoundException missing = new FileNotFoundException(dir + " does not exist");
      missing.initCause(e);
      throw new UncheckedIOException(missing);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
