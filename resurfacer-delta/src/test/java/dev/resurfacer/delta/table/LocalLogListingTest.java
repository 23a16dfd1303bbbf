package dev.resurfacer.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.table.TableStorage.Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer's temporary commit file can vanish between the log's directory listing and the look at
 * that entry (delta-spark renames {@code .N.json.<uuid>.tmp} to {@code N.json}); the log listing
 * skips it instead of failing, which failed compaction bins beside a delta-spark writer.
 */
class LocalLogListingTest {
  @TempDir
  Path dir;

  @Test
  void aTemporaryFileRenamedAwayDuringTheListingIsSkipped() throws Exception {
    Path log = Files.createDirectories(dir.resolve("t/_delta_log"));
    Files.writeString(log.resolve("00000000000000000000.json"), "{}\n");
    LocalStorage storage = LocalStorage.open(dir.resolve("t"), dir.resolve("t").toRealPath());
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      for (long n = 1; writing.get(); n++) {
        try {
          Path tmp = log.resolve(String.format(".%020d.json.%d.tmp", n, n));
          Files.writeString(tmp, "{}\n");
          Files.delete(tmp);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    });
    writer.start();
    try {
      for (int i = 0; i < 3000; i++) {
        List<Entry> entries = storage.listLog();
        assertThat(entries)
            .extracting(e -> Path.of(e.file().path()).getFileName().toString())
            .contains("00000000000000000000.json");
      }
    } finally {
      writing.set(false);
      writer.join();
    }
  }
}
