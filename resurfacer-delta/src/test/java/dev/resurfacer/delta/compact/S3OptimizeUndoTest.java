package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.OptimizeUndo.Outcome;
import dev.resurfacer.delta.compact.OptimizeUndo.Refused;
import dev.resurfacer.delta.compact.OptimizeUndo.Undone;
import dev.resurfacer.delta.s3.ConditionalPutFront;
import dev.resurfacer.delta.s3.S3Bucket;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The undo on {@code s3://}, committed through a store that honours conditional PUTs (s3proxy behind
 * {@link ConditionalPutFront}) while delta-spark writes the same objects through {@code s3a://}: a
 * delta-spark INSERT landing between our check and our commit takes the log entry and ours fails (and
 * a second try is refused before writing); the next OPTIMIZE version is then undone, back to the
 * files and rows of the INSERT's version.
 */
class S3OptimizeUndoTest {
  @TempDir
  Path dir;

  @Test
  void aRacingSparkInsertFailsTheUndoThenTheNextOptimizeIsUndoneOnS3() throws Exception {
    Path local = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("t"));
    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(local));
    try (S3Bucket s3 = new S3Bucket("undo", false).openToSpark();
        ConditionalPutFront front = new ConditionalPutFront(s3.endpoint());
        DeltaTable table = open(s3, front, s3.upload(local, "t"))) {
      assertThat(((ObjectStorage) table.storage()).conditionalPut()).isTrue();
      // objects copied into s3proxy's backend carry no ETag, which S3A's change detection requires
      DeltaSpark.session()
          .sparkContext()
          .hadoopConfiguration()
          .set("fs.s3a.bucket.undo.change.detection.mode", "none");
      DeltaSpark.session()
          .sparkContext()
          .hadoopConfiguration()
          .set("fs.s3a.bucket.undo.change.detection.version.required", "false");
      String spark = DeltaSpark.table(s3.s3a("t"));
      long v = table.latest().getVersion();
      Set<String> logBefore = logKeys(s3);

      Outcome raced = OptimizeUndo.undo(
          table,
          v,
          Clock.systemUTC(),
          () -> DeltaSpark.sql("INSERT INTO " + spark + " VALUES (9003, 'x%y', 'raced')"));

      assertThat(raced).isInstanceOf(Refused.class);
      assertThat(raced.describe())
          .contains("version(s) " + (v + 1) + " (WRITE by Apache-Spark")
          .contains("our commit failed");
      assertThat(table.latest().getVersion()).isEqualTo(v + 1);
      Set<String> added = logKeys(s3);
      added.removeAll(logBefore);
      assertThat(added)
          .as("only their entry (and its checksum) joined the log")
          .isNotEmpty()
          .allMatch(k -> k.startsWith(String.format("_delta_log/%020d.", v + 1)));
      Set<LiveFile> inserted = Set.copyOf(LiveFiles.of(table, table.latest()));
      Set<String> logAfterRace = logKeys(s3);
      assertThat(OptimizeUndo.undo(table, v, Clock.systemUTC()))
          .as("theirs is on top now")
          .isInstanceOf(Refused.class);
      assertThat(logKeys(s3)).as("nothing written").isEqualTo(logAfterRace);
      List<String> rows = DeltaSpark.typedRows(s3.s3a("t"));
      assertThat(rows).anyMatch(r -> r.contains("raced"));

      DeltaSpark.sql("OPTIMIZE " + spark);
      assertThat(table.latest().getVersion())
          .as("the raced row's file and its partition's compacted into one")
          .isEqualTo(v + 2);
      Outcome undone = OptimizeUndo.undo(table, v + 2, Clock.systemUTC());

      assertThat(undone)
          .isInstanceOf(Undone.class)
          .extracting(o -> ((Undone) o).version())
          .isEqualTo(v + 3);
      assertThat(Set.copyOf(LiveFiles.of(table, table.latest()))).isEqualTo(inserted);
      assertThat(DeltaSpark.typedRows(s3.s3a("t"))).isEqualTo(rows);
    }
  }

  private static Set<String> logKeys(S3Bucket s3) throws Exception {
    return s3.keys("t").stream()
        .filter(k -> k.startsWith("_delta_log/"))
        .collect(Collectors.toCollection(HashSet::new));
  }

  private DeltaTable open(S3Bucket s3, ConditionalPutFront front, String location) {
    Map<String, String> props = new HashMap<>(s3.properties());
    props.put("s3.endpoint", front.endpoint());
    ResurfacerConfig config = new ResurfacerConfig(
        Map.of(
            "deltas",
            new CatalogConfig(
                "deltas", "delta", null, null, props, Set.of(), Map.of("t.t", location))),
        null);
    return DeltaTables.find("t.t", config, dir).orElseThrow();
  }
}
