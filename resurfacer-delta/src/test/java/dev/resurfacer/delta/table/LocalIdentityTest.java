package dev.resurfacer.delta.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.storage.StoredFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a local Delta table names its files: every spelling a log can hold, resolved by the table's resolver, without Spark. */
class LocalIdentityTest {
  @TempDir
  Path dir;

  @Test
  void everySpellingOfALogPathIsTheRealFileAsTheDiskSpellsIt() throws Exception {
    Path base = dir.toRealPath();
    Path root = Files.createDirectories(base.resolve("wh/events"));
    Path file = Files.writeString(
        Files.createDirectories(root.resolve("part=x%25y")).resolve("f.parquet"), "x");
    Path alias = Files.createSymbolicLink(base.resolve("alias"), root);
    Path whLink = Files.createSymbolicLink(base.resolve("wh-link"), base.resolve("wh"));
    Files.createSymbolicLink(root.resolve("_alias"), Path.of("part=x%25y"));
    StoredFile real = LocalStorage.of(file);
    for (LocalStorage s : List.of(LocalStorage.open(root, root), LocalStorage.open(alias, root))) {
      for (String spelled : List.of(
          "part=x%2525y/f.parquet",
          "./part=x%2525y//f.parquet",
          "part=x%2525y/../part=x%2525y/f.parquet",
          "part%3Dx%2525y/f.parquet",
          "_alias/f.parquet",
          "file:" + root + "/part=x%2525y/f.parquet",
          "file://" + root + "/part=x%2525y/f.parquet",
          "file://localhost" + root + "/part=x%2525y/f.parquet",
          root + "/part=x%2525y/f.parquet",
          "file:" + alias + "/part=x%2525y/f.parquet",
          "file:" + whLink + "/events//_alias/./f.parquet")) {
        assertThat(s.resolveAll(spelled)).as(spelled).containsExactly(real);
      }
      assertThat(s.fromKernelPath("file:" + s.directory() + "/part=x%25y/f.parquet"))
          .isEqualTo(real);
      assertThat(s.inside(real)).isTrue();
    }
  }

  @Test
  void aDotDotAfterALinkNamesBothFilesHadoopsFirst() throws Exception {
    Path root = Files.createDirectories(dir.toRealPath().resolve("events"));
    Files.createDirectories(root.resolve("deep/sub"));
    Files.createSymbolicLink(root.resolve("lnk"), Path.of("deep/sub"));
    LocalStorage s = LocalStorage.open(root, root);

    assertThat(s.resolveAll("lnk/../part=a/f.parquet"))
        .containsExactly(
            LocalStorage.of(root.resolve("part=a/f.parquet")),
            LocalStorage.of(root.resolve("deep/part=a/f.parquet")));
    assertThat(s.resolve("lnk/../part=a/f.parquet"))
        .isEqualTo(LocalStorage.of(root.resolve("part=a/f.parquet")));
  }

  @Test
  void pathsThatAreNotFilesOnThisMachineAreRefused() throws Exception {
    LocalStorage s = LocalStorage.open(dir.toRealPath(), dir.toRealPath());
    for (String bad : List.of(
        "s3://b/t/f.parquet",
        "file://otherhost/t/f.parquet",
        "//otherhost/t/f.parquet",
        "file:t/f.parquet",
        "part=a b/f.parquet",
        "file://localhost")) {
      assertThatThrownBy(() -> s.resolveAll(bad)).as(bad).isInstanceOf(SafetyRefusal.class);
    }
  }
}
