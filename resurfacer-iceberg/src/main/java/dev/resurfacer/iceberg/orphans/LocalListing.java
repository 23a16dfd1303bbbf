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
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.io.FileInfo;

/**
 * Lists a local directory with java.nio, whatever FileIO the table uses. Hadoop's local listing
 * builds a {@code LocatedFileStatus} per file, which loads its permissions, and without the native
 * Hadoop library that forks {@code ls -ld} once per file (about 3–5 ms a file: hours for a million);
 * it also follows symbolic links. This walk forks nothing and follows no link: a link (to a file or
 * a directory, inside the scope or out of it) is never listed, so never deleted, and never
 * traversed, so a loop cannot recur. Links are counted for the report instead.
 *
 * <p>Entries are what Hadoop lists: {@code file:/abs/path}, length, modification time; Hadoop
 * checksum sidecars ({@code .name.crc}) are left out, as Hadoop's checksummed file system hides
 * them and deletes them with their file.
 */
final class LocalListing {
  /** What the walk stepped over instead of listing. */
  record Skipped(long links, long other, String sampleLink) {}

  private LocalListing() {}

  static Skipped walk(Path realDir, Set<Path> skipDirs, Consumer<FileInfo> sink) {
    long[] links = new long[2];
    String[] sample = new String[1];
    try {
      Files.walkFileTree(realDir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          return skipDirs.contains(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isSymbolicLink()) {
            links[0]++;
            if (sample[0] == null) {
              sample[0] = file.toString();
            }
            return FileVisitResult.CONTINUE;
          }
          if (!attrs.isRegularFile()) {
            links[1]++; // a socket, a pipe, a device: not a table file, never deleted
            return FileVisitResult.CONTINUE;
          }
          String name = file.getFileName().toString();
          if (name.startsWith(".") && name.endsWith(".crc")) {
            return FileVisitResult.CONTINUE;
          }
          sink.accept(new FileInfo(
              "file:" + file, attrs.size(), attrs.lastModifiedTime().toMillis()));
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      FileNotFoundException missing = new FileNotFoundException(realDir + " does not exist");
      missing.initCause(e);
      throw new UncheckedIOException(missing);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Skipped(links[0], links[1], sample[0]);
  }
}
