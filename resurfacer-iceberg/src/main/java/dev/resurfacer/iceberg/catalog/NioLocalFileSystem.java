package dev.resurfacer.iceberg.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local file system, with permissions set through java.nio. Without Hadoop's native
 * library (it is not shipped) {@link RawLocalFileSystem#setPermission} forks {@code chmod} for every
 * file and directory it creates: every manifest, manifest list and metadata file Iceberg writes
 * through {@code HadoopFileIO} cost a process, which was a large part of a small table's
 * maintenance. The mode set is the same; only how it is set differs.
 */
public final class NioLocalFileSystem extends RawLocalFileSystem {
  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    java.nio.file.Path file = pathToFile(p).toPath();
    try {
      Files.setPosixFilePermissions(file, posix(permission.toShort()));
    } catch (UnsupportedOperationException notPosix) {
      super.setPermission(p, permission);
    }
  }

  static Set<PosixFilePermission> posix(short mode) {
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_READ
    };
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        out.add(bits[i]);
      }
    }
    return out;
  }
}
