package dev.resurfacer.delta.vacuum;

import dev.resurfacer.SafetyRefusal;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The files under a table's root, listed without following symbolic links. Names Delta treats as
 * hidden are left out, as Delta's VACUUM does: a name starting with {@code _} or {@code .} (so
 * {@code _delta_log}, {@code _change_data} and Hadoop's {@code .crc} side files), unless it is a
 * partition directory {@code <column>=...} of a partition column whose name starts that way.
 * Unlike Delta, {@code _change_data} and {@code _delta_index} are never entered: their files are
 * kept.
 */
record TableListing(List<Listed> files, List<Path> symlinks) {

  record Listed(Path file, long size, long modificationTime) {}

  static TableListing list(Path realRoot, List<String> partitionColumns) {
    List<Listed> files = new ArrayList<>();
    List<Path> links = new ArrayList<>();
    try {
      Files.walkFileTree(realRoot, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          if (dir.equals(realRoot)) {
            return FileVisitResult.CONTINUE;
          }
          if (hidden(dir.getFileName().toString(), partitionColumns)) {
            return FileVisitResult.SKIP_SUBTREE;
          }
          if (Files.exists(dir.resolve("_delta_log"), java.nio.file.LinkOption.NOFOLLOW_LINKS)
              || Files.isRegularFile(dir.resolve("metadata/version-hint.text"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new SafetyRefusal("another table lives inside this table's directory at " + dir
                + "; vacuum would delete its files as unreferenced");
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isSymbolicLink()) {
            links.add(file);
          } else if (attrs.isRegularFile() && !hidden(file.getFileName().toString(), partitionColumns)) {
            files.add(new Listed(file, attrs.size(), attrs.lastModifiedTime().toMillis()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          throw new SafetyRefusal("the listing of the table is incomplete (" + file + ": " + e.getMessage()
              + "); nothing is deleted from a partial listing");
        }
      });
    } catch (IOException e) {
      throw new SafetyRefusal("cannot list " + realRoot + ": " + e.getMessage());
    }
    return new TableListing(files, links);
  }

  static boolean hidden(String name, List<String> partitionColumns) {
    if (!(name.startsWith("_") || name.startsWith("."))) {
      return false;
    }
    return partitionColumns.stream().noneMatch(c -> name.startsWith(c + "="));
  }

  /** Whether any component of {@code file} below the root is hidden: such a file is never listed. */
  static boolean underHidden(Path realRoot, Path file, List<String> partitionColumns) {
    for (Path part : realRoot.relativize(file)) {
      if (hidden(part.toString(), partitionColumns)) {
        return true;
      }
    }
    return false;
  }
}
