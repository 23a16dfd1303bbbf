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
  @TempDir
  Path dir;

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
    Files.writeString(
        root.resolve("data/.f 0%20.parquet.crc"), "crc"); // a checksum sidecar: Hadoop hides it
    Files.writeString(root.resolve("metadata.json"), "{}");

    HadoopFileIO io = new HadoopFileIO(new Configuration());
    String prefix = root + "/";
    Set<Entry> hadoop = new HashSet<>();
    io.listPrefix(prefix).forEach(f -> hadoop.add(entry(f)));
    Set<Entry> nio = new HashSet<>();
    LocalListing.Skipped skipped = LocalListing.walk(root, Set.of(), f -> nio.add(entry(f)));
    assertThat(skipped.links()).isZero();

    assertThat(hadoop).hasSize(16);
    assertThat(nio).isEqualTo(hadoop);
  }

  @Test
  void aMissingRootIsFileNotFoundAsWithHadoop() {
    HadoopFileIO io = new HadoopFileIO(new Configuration());
    String prefix = dir.resolve("nothing-here") + "/";
    assertThatThrownBy(() -> LocalListing.walk(Path.of(prefix), Set.of(), f -> {}))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(FileNotFoundException.class);
  }

  @Test
  void linksAreNeverListedNorFollowedAndALoopEnds() throws Exception {
    Path root = Files.createDirectories(dir.resolve("t"));
    Path cat = Files.createDirectories(root.resolve("data/cat=a"));
    Files.writeString(cat.resolve("f.parquet"), "x");
    Path outside = Files.createDirectories(dir.resolve("neighbour/data"));
    Files.writeString(outside.resolve("g.parquet"), "y");
    Files.createSymbolicLink(root.resolve("data/latest"), cat); // a directory link inside the scope
    Files.createSymbolicLink(root.resolve("data/elsewhere"), outside); // a link out of the scope
    Files.createSymbolicLink(cat.resolve("loop"), root); // a loop
    Files.createSymbolicLink(
        root.resolve("data/one.parquet"), cat.resolve("f.parquet")); // a file link

    Set<String> listed = new HashSet<>();
    LocalListing.Skipped skipped = LocalListing.walk(root, Set.of(), f -> listed.add(f.location()));

    assertThat(listed).containsExactly("file:" + cat.resolve("f.parquet"));
    assertThat(skipped.links()).isEqualTo(4);
  }

  @Test
  void skippedDirectoriesAreNotEntered() throws Exception {
    Path root = Files.createDirectories(dir.resolve("t"));
    Path held = Files.createDirectories(root.resolve(".resurfacer-quarantine/run"));
    Files.writeString(held.resolve("x.parquet"), "x");
    Files.writeString(root.resolve("y.parquet"), "y");
    Set<String> listed = new HashSet<>();
    LocalListing.walk(
        root, Set.of(root.resolve(".resurfacer-quarantine")), f -> listed.add(f.location()));
    assertThat(listed).containsExactly("file:" + root.resolve("y.parquet"));
  }
}
