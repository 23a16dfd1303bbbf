package dev.resurfacer.iceberg.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NioLocalFileSystemTest {
  @TempDir
  Path dir;

  @Test
  void theLocalFileSystemOfOurConfigurationSetsModesWithoutAProcess() throws Exception {
    FileSystem fs = FileSystem.get(URI.create("file:///"), Catalogs.localHadoopConf());
    assertThat(fs).isInstanceOf(NioLocalFileSystem.class);

    org.apache.hadoop.fs.Path file =
        new org.apache.hadoop.fs.Path(dir.resolve("a/b/m.avro").toUri());
    try (FSDataOutputStream out =
        fs.create(file, new FsPermission((short) 0640), false, 4096, (short) 1, 1 << 20, null)) {
      out.write("manifest".getBytes(StandardCharsets.UTF_8));
    }
    Path written = dir.resolve("a/b/m.avro");
    assertThat(Files.readString(written)).isEqualTo("manifest");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(written)))
        .isEqualTo("rw-r-----");
    assertThat(dir.resolve("a/b.crc")).doesNotExist();
    assertThat(dir.resolve("a/b/.m.avro.crc")).doesNotExist();

    fs.setPermission(
        new org.apache.hadoop.fs.Path(dir.resolve("a").toUri()), new FsPermission((short) 0750));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a"))))
        .isEqualTo("rwxr-x---");
  }

  @Test
  void everyModeBitMapsToItsPosixPermission() {
    assertThat(PosixFilePermissions.toString(NioLocalFileSystem.posix((short) 0644)))
        .isEqualTo("rw-r--r--");
    assertThat(PosixFilePermissions.toString(NioLocalFileSystem.posix((short) 0777)))
        .isEqualTo("rwxrwxrwx");
    assertThat(PosixFilePermissions.toString(NioLocalFileSystem.posix((short) 0501)))
        .isEqualTo("r-x-----x");
    assertThat(NioLocalFileSystem.posix((short) 0)).isEmpty();
  }
}
