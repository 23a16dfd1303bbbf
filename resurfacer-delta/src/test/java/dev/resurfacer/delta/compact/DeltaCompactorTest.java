package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaCompactorTest {
  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private DeltaTable copy(String name) throws IOException {
    return DeltaTables.open(
        "raw.events", TestTables.copy(source, dir.resolve(name)).toString(), dir);
  }

  @Test
  void binPacksEachPartitionAndSparkReadsTheSameRowsAsAfterItsOwnOptimize() throws Exception {
    DeltaTable table = copy("events");
    DeltaTable sparkCopy = copy("spark-optimized");
    List<String> before = DeltaSpark.rows(table.localRoot());
    long filesBefore = LiveFiles.of(table, table.latest()).size();
    long versionBefore = table.latest().getVersion();

    CompactionPlan plan =
        DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
    assertThat(plan.bins()).hasSize(2);
    assertThat(plan.inputFiles()).isEqualTo(filesBefore);
    assertThat(table.latest().getVersion()).as("planning commits nothing").isEqualTo(versionBefore);

    CompactionResult result = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());

    assertThat(result.failedBins()).isEmpty();
    assertThat(result.committedVersions()).containsExactly(versionBefore + 1, versionBefore + 2);
    assertThat(result.rows()).isEqualTo(before.size());
    assertThat(result.verificationCpuNanos())
        .as("both sides' reads were timed on their threads")
        .isPositive();
    assertThat(result.render())
        .containsPattern("\\(OPTIMIZE, dataChange=false\\), verification \\d+\\.\\d\\d CPU-s$");
    List<LiveFile> after = LiveFiles.of(table, table.latest());
    assertThat(after).hasSize(2).allMatch(f -> f.deletionVector().isEmpty());
    assertThat(after.stream().mapToLong(f -> f.numRecords().orElseThrow()).sum())
        .as("stats carry numRecords")
        .isEqualTo(before.size());
    assertThat(after.stream().map(f -> f.partitionValues().get("part")).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("a b", "x%y");
    assertThat(DeltaSpark.rows(table.localRoot())).isEqualTo(before);

    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(sparkCopy.localRoot()));
    assertThat(DeltaSpark.rows(sparkCopy.localRoot()))
        .isEqualTo(DeltaSpark.rows(table.localRoot()));

    var history = DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(table.localRoot()) + " LIMIT 1")
        .collectAsList()
        .get(0);
    assertThat(history.<String>getAs("operation")).isEqualTo("OPTIMIZE");
    for (long v : result.committedVersions()) {
      List<JsonNode> actions = commit(table, v);
      List<JsonNode> files = actions.stream()
          .filter(a -> a.has("add") || a.has("remove"))
          .map(a -> a.has("add") ? a.get("add") : a.get("remove"))
          .toList();
      assertThat(files).isNotEmpty().allMatch(f -> !f.get("dataChange").asBoolean());
      assertThat(actions.stream()
              .filter(a -> a.has("add"))
              .map(a -> a.get("add").get("stats").asText()))
          .allMatch(s -> s.contains("\"numRecords\"")
              && s.contains("\"minValues\"")
              && s.contains("\"nullCount\""));
      assertThat(actions.stream()
              .filter(a -> a.has("commitInfo"))
              .map(a -> a.get("commitInfo").get("operation").asText()))
          .containsExactly("OPTIMIZE");
    }
    CompactionPlan again =
        DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
    assertThat(again.bins())
        .as("a compacted table has nothing left to bin-pack")
        .isEmpty();
  }

  @Test
  void anInputAConcurrentCommitRemovedFailsItsBinAndIsNeverLost() throws Exception {
    DeltaTable table = copy("events");
    long versionBefore = table.latest().getVersion();
    List<String> rowsBefore = DeltaSpark.rows(table.localRoot());

    // a whole partition deleted: its files removed, not re-added with a deletion vector (that is
    // carried, CarriedVectorsTest)
    CompactionResult result = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()),
        Clock.systemUTC(),
        DeltaCompactor.Seam.beforeCommit(new Runnable() {
          boolean done;

          @Override
          public void run() {
            if (!done) {
              done = true;
              DeltaSpark.sql(
                  "DELETE FROM " + DeltaSpark.table(table.localRoot()) + " WHERE part = 'a b'");
            }
          }
        }));

    assertThat(result.failedBins())
        .singleElement()
        .matches(
            m -> m.contains("a concurrent commit touched this bin")
                && m.contains("removed input")
                && m.contains("(not re-added)"),
            "names the removed input");
    assertThat(result.committedVersions()).containsExactly(versionBefore + 2);
    assertThat(DeltaSpark.rows(table.localRoot()))
        .isEqualTo(rowsBefore.stream().filter(r -> !r.contains(",a b,")).toList())
        .hasSizeLessThan(rowsBefore.size());
    java.util.Set<String> expected = new java.util.TreeSet<>(dataFilesOnDisk(source));
    LiveFiles.of(table, table.latest())
        .forEach(f -> expected.add(
            table.localRealRoot().relativize(LocalStorage.path(f.file())).toString()));
    assertThat(dataFilesOnDisk(table.localRoot()))
        .as("the failed bin's new files were deleted")
        .isEqualTo(expected);
  }

  private static java.util.Set<String> dataFilesOnDisk(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".parquet")
              && !p.toString().contains("_delta_log"))
          .map(p -> root.relativize(p).toString())
          .collect(Collectors.toCollection(java.util.TreeSet::new));
    }
  }

  private static List<JsonNode> commit(DeltaTable table, long version) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(
        table.localRoot().resolve("_delta_log").resolve(String.format("%020d.json", version)))) {
      out.add(json.readTree(line));
    }
    return out;
  }
}
