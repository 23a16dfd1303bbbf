package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.zorder.ZKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** z-order and --where on delta-spark tables, with Spark's OPTIMIZE ZORDER BY as the oracle. */
class DeltaZOrderTest {
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
  void zOrderRewritesEachPartitionInZValueOrderWithTheSameRowsAsSparksZOrder() throws Exception {
    DeltaTable table = copy("events");
    DeltaTable sparkCopy = copy("spark");
    List<String> before = DeltaSpark.typedRows(table.localRoot());
    CompactionOptions options = CompactionOptions.defaults().zOrder(List.of("id", "v"));

    CompactionPlan plan = DeltaCompactor.plan(table, options).preview();
    assertThat(plan.bins()).hasSize(2);
    assertThat(plan.inputFiles()).isEqualTo(LiveFiles.of(table, table.latest()).size());
    CompactionResult result =
        DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC());

    assertThat(result.failedBins()).isEmpty();
    assertThat(DeltaSpark.typedRows(table.localRoot())).isEqualTo(before);
    for (LiveFile f : LiveFiles.of(table, table.latest())) {
      List<Row> rows =
          DeltaSpark.session().read().parquet(f.file().path()).select("id", "v").collectAsList();
      byte[] previous = null;
      for (Row r : rows) {
        byte[] z = ZKeys.interleave(
            new long[] {ZKeys.ofLong(r.getLong(0)), ZKeys.ofString(r.getString(1))});
        if (previous != null) {
          assertThat(ZKeys.compare(previous, z))
              .as("rows of %s in z-value order", f.file())
              .isLessThanOrEqualTo(0);
        }
        previous = z;
      }
    }
    long version = result.committedVersions().get(0);
    JsonNode info = null;
    for (String line : Files.readAllLines(
        table.localRoot().resolve("_delta_log").resolve(String.format("%020d.json", version)))) {
      JsonNode a = new ObjectMapper().readTree(line);
      if (a.has("commitInfo")) {
        info = a.get("commitInfo");
      }
    }
    assertThat(info.get("operation").asText()).isEqualTo("OPTIMIZE");
    assertThat(info.get("operationParameters").get("zOrderBy").asText())
        .isEqualTo("[\"id\",\"v\"]");

    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(sparkCopy.localRoot()) + " ZORDER BY (id, v)");
    assertThat(DeltaSpark.typedRows(sparkCopy.localRoot()))
        .isEqualTo(DeltaSpark.typedRows(table.localRoot()));
  }

  @Test
  void whereCompactsOnlyTheMatchingPartitions() throws Exception {
    DeltaTable table = copy("events");
    List<String> before = DeltaSpark.typedRows(table.localRoot());
    Map<String, List<String>> filesBefore = files(table);
    CompactionOptions options = new CompactionOptions(OptionalLong.empty(), 0.3)
        .where(new PartitionFilter("part = 'a b'", p -> "a b".equals(p.get("part"))));

    CompactionPlan plan = DeltaCompactor.plan(table, options).preview();
    assertThat(plan.bins()).hasSize(1).allMatch(b -> b.partition().equals(Map.of("part", "a b")));
    assertThat(plan.skipped()).anyMatch(s -> s.contains("outside --where part = 'a b'"));
    assertThat(DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC())
            .failedBins())
        .isEmpty();

    Map<String, List<String>> filesAfter = files(table);
    assertThat(filesAfter.get("x%y"))
        .as("the other partition is untouched")
        .isEqualTo(filesBefore.get("x%y"));
    assertThat(filesAfter.get("a b")).hasSize(1).isNotEqualTo(filesBefore.get("a b"));
    assertThat(DeltaSpark.typedRows(table.localRoot())).isEqualTo(before);
  }

  @Test
  void zOrderRefusesPartitionColumnsUnknownColumnsAndClusteredTables() throws Exception {
    DeltaTable table = copy("events");
    assertThatThrownBy(
            () -> DeltaCompactor.plan(table, CompactionOptions.defaults().zOrder(List.of("part"))))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("partition column");
    assertThatThrownBy(
            () -> DeltaCompactor.plan(table, CompactionOptions.defaults().zOrder(List.of("nope"))))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("not a column");

    Path t = dir.resolve("clustered");
    DeltaSpark.sql("CREATE TABLE " + DeltaSpark.table(t)
        + " (id BIGINT, v STRING) USING delta CLUSTER BY (id)");
    for (int i = 0; i < 3; i++) {
      DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(t)
          + " SELECT id, concat('v', id) FROM range(" + i * 10 + ", " + (i * 10 + 10) + ")");
    }
    DeltaTable clustered = DeltaTables.open("clustered", t.toString(), dir);
    List<String> before = DeltaSpark.typedRows(t);
    long version = clustered.latest().getVersion();
    assertThatThrownBy(() -> DeltaCompactor.execute(
            DeltaCompactor.plan(clustered, CompactionOptions.defaults().zOrder(List.of("id"))),
            Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("clustered")
        .hasMessageContaining("Bin-pack");
    assertThat(clustered.latest().getVersion()).isEqualTo(version);

    CompactionResult binpack = DeltaCompactor.execute(
        DeltaCompactor.plan(clustered, CompactionOptions.defaults()), Clock.systemUTC());
    assertThat(binpack.failedBins()).isEmpty();
    assertThat(binpack.removedFiles()).isEqualTo(3);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
  }

  private static Map<String, List<String>> files(DeltaTable table) {
    return LiveFiles.of(table, table.latest()).stream()
        .collect(Collectors.groupingBy(
            f -> f.partitionValues().get("part"),
            Collectors.mapping(
                LiveFile::logPath,
                Collectors.collectingAndThen(
                    Collectors.toList(), l -> l.stream().sorted().toList()))));
  }
}
