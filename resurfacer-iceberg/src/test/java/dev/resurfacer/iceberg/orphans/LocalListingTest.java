package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The java.nio listing of local storage returns exactly what HadoopFileIO's own listing returns. */
class LocalListingTest {
  @TempDir Path dir;

  record Entry(String location, long size, long mtime) {}

  static Entry entry(FileInfo f) {
    return new Entry(f.location(), f.size(), f.createdAtMillis());
  }

  @Test
  void listsTheSameFilesSizesAndTimesAsHadoop() throws Exception {
    Path root = dir.resolve("t");
    long tenDaysAgo = System.currentTimeMillis() - 10L * 24 * 3600 * 1000;
    for (int d = 0; d < 3; d++) {
      Path sub = Files.createDirectories(root.resolve("data/day=" + d + "/deeper"));
      for (int i = 0; i < 5; i++) {
        Path f = Files.writeString(sub.resolve("f " + i + "%20.parquet"), "x".repeat(i * 7));
        Files.setLastModifiedTime(f, FileTime.fromMillis(tenDaysAgo + i * 1000L));
      }
    }
    Files.createDirectories(root.resolve("empty/dir"));
    Files.writeString(root.resolve("data/.f 0%20.parquet.crc"), "crc"); // a checksum sidecar: Hadoop hides it
    Files.writeString(root.resolve("metadata.json"), "{}");

    HadoopFileIO io = new HadoopFileIO(new Configuration());
    String prefix = root + "/";
    Set<Entry> hadoop = new HashSet<>();
    io.listPrefix(prefix).forEach(f -> hadoop.add(entry(f)));
    Set<Entry> nio = new HashSet<>();
    assertThat(LocalListing.listIfLocal(io, prefix, StorageUri.parse(prefix), f -> nio.add(entry(f)))).isTrue();

    assertThat(hadoop).hasSize(16);
    assertThat(nio).isEqualTo(hadoop);
  }

  @Test
  void aMissingRootIsFileNotFoundAsWithHadoop() {
    HadoopFileIO io = new HadoopFileIO(new Configuration());
    String prefix = dir.resolve("nothing-here") + "/";
    assertThatThrownBy(() -> LocalListing.listIfLocal(io, prefix, StorageUri.parse(prefix), f -> { }))
        .isInstanceOf(UncheckedIOException.class).hasCauseInstanceOf(FileNotFoundException.class);
  }

  @Test
  void otherFileIOsAndSchemesListThemselves() {
    HadoopFileIO io = new HadoopFileIO(new Configuration());
    FaultyFileIO faulty = new FaultyFileIO(io);
    String prefix = dir + "/";
    assertThat(LocalListing.listIfLocal(faulty, prefix, StorageUri.parse(prefix), f -> { })).isFalse();
    assertThat(LocalListing.listIfLocal(io, "s3://bucket/t/", StorageUri.parse("s3://bucket/t/"), f -> { })).isFalse();
  }
}
