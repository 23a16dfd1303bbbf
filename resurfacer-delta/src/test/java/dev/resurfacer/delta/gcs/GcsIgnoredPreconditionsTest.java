package dev.resurfacer.delta.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.iceberg.testing.GcsEmulator;
import dev.resurfacer.progress.Progress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Cloud Storage server that ignores upload preconditions (firebase-tools' emulator as shipped):
 * the probe finds it out, and a commit is refused in one line with every object left as it was,
 * unless the owner declared one writer.
 */
class GcsIgnoredPreconditionsTest {
  @RegisterExtension
  static final GcsEmulator GCS =
      new GcsEmulator("ignoring", Map.of("RESURFACER_GCS_PRECONDITIONS", "off"));

  @TempDir
  Path dir;

  private DeltaTable find(Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(GCS.fileIoProperties());
    props.putAll(extra);
    CatalogConfig c = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        props,
        Set.of(),
        Map.of("raw.events", "gs://ignoring/t/events"),
        List.of());
    return DeltaTables.find("raw.events", new ResurfacerConfig(Map.of("deltas", c), null), dir)
        .orElseThrow();
  }

  /** Every object's name with its generation: an overwrite changes it. */
  private static Map<String, Long> objects() {
    Map<String, Long> out = new TreeMap<>();
    try (Storage s = GCS.storage()) {
      for (Blob b : s.list(GCS.bucket()).iterateAll()) {
        out.put(b.getName(), b.getGeneration());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  @Test
  void aStoreThatIgnoresPreconditionsRefusesCommitsUnlessOneWriterIsDeclared() throws Exception {
    try (Storage s = GCS.storage()) {
      GcsDeltaTableTest.upload(
          s, GCS.bucket(), TestTables.sharedPartitionedWithDeletes(), "t/events");
    }
    Map<String, Long> before = objects();
    try (DeltaTable table = find(Map.of())) {
      assertThat(((ObjectStorage) table.storage()).conditionalPut()).isFalse();
      assertThatThrownBy(() -> DeltaCompactor.execute(
              DeltaCompactor.plan(table, CompactionOptions.defaults()),
              Clock.systemUTC(),
              Progress.NONE))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("does not honour conditional PUTs")
          .hasMessageContaining("s3.single-writer");
    }
    assertThat(objects()).as("no object written, none overwritten").isEqualTo(before);

    try (DeltaTable table = find(Map.of("s3.single-writer", "true"))) {
      long version = table.latest().getVersion();
      var compacted = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          Progress.NONE);
      assertThat(compacted.failedBins()).isEmpty();
      assertThat(compacted.removedFiles()).isGreaterThan(0);
      assertThat(table.latest().getVersion()).isGreaterThan(version);
    }
  }
}
