package dev.resurfacer.delta.compact;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.describe.DeltaDescriber;
import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Compaction of column-mapped tables (name and id mode) written by delta-spark: a renamed column,
 * a column dropped and added again under the same name (the old files still hold the dropped
 * column's values under its old physical name), a renamed nested struct field, deletion vectors.
 * Both runners write the physical names and field ids Spark writes, and stats Spark skips files by.
 */
class DeltaColumnMappingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static final Map<String, Path> SOURCES = new TreeMap<>();
  /** The data file delta-spark's last insert wrote into each source: the current schema as Spark writes it. */
  private static final Map<String, Path> SPARK_FILES = new TreeMap<>();

  @BeforeAll
  static void writeTables() throws IOException {
    for (String mode : List.of("name", "id")) {
      Path t = shared.resolve(mode);
      String n = DeltaSpark.table(t);
      sql("CREATE TABLE " + n
          + " (id BIGINT, part STRING, v STRING, x DOUBLE, s STRUCT<a: INT, b: STRING>) USING delta"
          + " PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = '" + mode
          + "', 'delta.enableDeletionVectors' = 'true')");
      for (int i = 0; i < 3; i++) {
        sql("INSERT INTO " + n
            + " SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END, concat('v', id), id * 1.5,"
            + " named_struct('a', CAST(id AS INT), 'b', concat('b', id)) FROM range(" + i * 100
            + ", " + (i * 100 + 100) + ")");
      }
      sql("ALTER TABLE " + n + " RENAME COLUMN v TO renamed");
      sql("ALTER TABLE " + n + " DROP COLUMN x");
      sql("INSERT INTO " + n
          + " (id, part, renamed, s) SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END, concat('v', id),"
          + " named_struct('a', CAST(id AS INT), 'b', concat('b', id)) FROM range(300, 400)");
      sql("ALTER TABLE " + n + " ADD COLUMNS (x DOUBLE)");
      sql("ALTER TABLE " + n + " RENAME COLUMN s.a TO a2");
      sql(
          "INSERT INTO " + n
              + " (id, part, renamed, s, x) SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END,"
              + " concat('w', id), named_struct('a2', CAST(id AS INT), 'b', concat('b', id)), -id FROM range(400, 500)");
      SPARK_FILES.put(mode, addedFiles(t, latestVersion(t)).get(0));
      sql("DELETE FROM " + n + " WHERE id % 7 = 0");
      SOURCES.put(mode, t);
    }
  }

  private DeltaTable copy(String mode, String name) throws IOException {
    return DeltaTables.open(
        name, TestTables.copy(SOURCES.get(mode), dir.resolve(name)).toString(), dir);
  }

  @ParameterizedTest(name = "{0} mode, {1} runner")
  @CsvSource({"id, duckdb", "name, kernel"})
  void compactionWritesPhysicalNamesFieldIdsAndStatsAsSparkDoes(String mode, String runner)
      throws Exception {
    DeltaTable table = copy(mode, mode + "-" + runner);
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    assertThat(before).hasSize(500 - 72);
    assertThat(count(t, "x IS NOT NULL AND id < 400"))
        .as("the dropped column's old values stay dropped")
        .isZero();
    long versionBefore = table.latest().getVersion();

    CompactionOptions options = CompactionOptions.defaults()
        .runner(
            runner.equals("duckdb")
                ? CompactionOptions.Runner.DUCKDB
                : CompactionOptions.Runner.KERNEL);
    CompactionResult r =
        DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.plan().runner()).isEqualTo(runner);
    assertThat(r.removedFiles()).isEqualTo(10);
    assertThat(r.addedFiles()).isEqualTo(2);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    assertThat(count(t, "x IS NOT NULL AND id < 400")).isZero();
    assertThat(DeltaSpark.session()
            .sql("DESCRIBE HISTORY " + DeltaSpark.table(t) + " LIMIT 1")
            .collectAsList()
            .get(0)
            .<String>getAs("operation"))
        .isEqualTo("OPTIMIZE");

    List<LiveFile> live = LiveFiles.of(table, table.latest());
    assertThat(live).hasSize(2).allMatch(f -> f.deletionVector().isEmpty());
    assertThat(live.stream().map(f -> f.partitionValues().get("part")).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("even", "odd");
    List<String> sparkSchema = parquetSchema(SPARK_FILES.get(mode));
    assertThat(sparkSchema)
        .as("Spark's file carries field ids")
        .allMatch(c -> !c.contains("id=null"));
    for (LiveFile f : live) {
      assertThat(parquetSchema(LocalStorage.path(f.file())))
          .as("Parquet names, field ids and types of " + f.logPath())
          .isEqualTo(sparkSchema);
    }
    JsonNode sparkStats = stats(SOURCES.get(mode), addedFileVersion(mode)).get(0);
    for (long v = versionBefore + 1; v <= table.latest().getVersion(); v++) {
      for (JsonNode s : stats(t, v)) {
        for (String key : List.of("minValues", "maxValues", "nullCount")) {
          assertThat(keyPaths(s.get(key), ""))
              .as(key + " keyed by physical names as Spark keys them")
              .isEqualTo(keyPaths(sparkStats.get(key), ""));
        }
      }
    }
    // Spark skips both files on a value below every file's minimum of the renamed column
    assertThat(filesRead(t, "renamed = 'a'")).isZero();
    assertThat(filesRead(t, "x < -498"))
        .as("the re-added column's stats: only id 499's file")
        .isEqualTo(1);
    assertThat(DeltaSpark.session()
            .sql("SELECT id FROM " + DeltaSpark.table(t) + " WHERE renamed >= 'w49' ORDER BY id")
            .collectAsList()
            .stream()
            .map(row -> row.getLong(0))
            .toList())
        .containsExactly(491L, 492L, 493L, 494L, 495L, 496L, 498L, 499L);
    assertThat(count(t, "s.a2 = 17")).isEqualTo(1);
  }

  @Test
  void zOrderOnARenamedColumnGivesKernelsRowOrder() throws Exception {
    DeltaDuckDbRunnerTest.assertDuckDbZOrdersAsKernel(
        copy("name", "z-duck"), copy("name", "z-kernel"), List.of("renamed", "id"));
  }

  @Test
  void vacuumCheckpointAndDescribeWorkOnACompactedColumnMappedTable() throws Exception {
    DeltaTable table = copy("id", "maintained");
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    assertThat(DeltaCompactor.execute(
                DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC())
            .failedBins())
        .isEmpty();
    TestTables.ageData(t, Duration.ofDays(30));

    VacuumOptions zero = new VacuumOptions(Optional.of(Duration.ZERO), true);
    VacuumPlan plan = DeltaVacuum.plan(table, zero, Clock.systemUTC());
    Set<String> live = LiveFiles.of(table, table.latest()).stream()
        .map(f -> f.file().path())
        .collect(Collectors.toSet());
    assertThat(plan.deletions())
        .as("the ten compacted files and the deletion vector file")
        .hasSizeGreaterThanOrEqualTo(10);
    assertThat(plan.deletions().stream().map(c -> c.file().path()))
        .doesNotContainAnyElementsOf(live);
    DeltaVacuum.execute(table, plan, zero, Clock.systemUTC());
    assertThat(live).allMatch(p -> Files.exists(Path.of(p)));
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);

    // past the deleted-file retention of the compaction's tombstones, which a checkpoint may drop
    assertThat(Checkpointer.execute(
                Checkpointer.plan(table, Clock.offset(Clock.systemUTC(), Duration.ofDays(8))))
            .written())
        .isTrue();
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    var health = DeltaDescriber.describe(table, Clock.systemUTC());
    assertThat(health.data().dataFiles()).isEqualTo(2);
    assertThat(health.data().records()).isEqualTo(before.size());
    assertThat(health.partitionColumns()).containsExactly("part");
    assertThat(health.properties()).containsEntry("delta.columnMapping.mode", "id");
  }

  private static long count(Path t, String where) {
    return DeltaSpark.session()
        .sql("SELECT count(*) FROM " + DeltaSpark.table(t) + " WHERE " + where)
        .collectAsList()
        .get(0)
        .getLong(0);
  }

  /** How many data files Spark's scan reads for a filter, after Delta's data skipping. */
  private static long filesRead(Path t, String where) {
    Dataset<Row> df =
        DeltaSpark.session().sql("SELECT * FROM " + DeltaSpark.table(t) + " WHERE " + where);
    df.collectAsList();
    long files = 0;
    Iterator<SparkPlan> leaves = scala.jdk.javaapi.CollectionConverters.asJava(
            df.queryExecution().executedPlan().collectLeaves())
        .iterator();
    while (leaves.hasNext()) {
      var metric = leaves.next().metrics().get("numFiles");
      if (metric.isDefined()) {
        files += metric.get().value();
      }
    }
    return files;
  }

  private static long latestVersion(Path t) throws IOException {
    try (var s = Files.list(t.resolve("_delta_log"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
          .max()
          .orElseThrow();
    }
  }

  private static long addedFileVersion(String mode) throws IOException {
    return latestVersion(SOURCES.get(mode)) - 1;
  }

  private static List<JsonNode> adds(Path t, long version) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line :
        Files.readAllLines(t.resolve("_delta_log").resolve(String.format("%020d.json", version)))) {
      JsonNode a = JSON.readTree(line);
      if (a.has("add")) {
        out.add(a.get("add"));
      }
    }
    return out;
  }

  private static List<Path> addedFiles(Path t, long version) throws IOException {
    List<Path> out = new ArrayList<>();
    for (JsonNode a : adds(t, version)) {
      out.add(t.resolve(java.net.URLDecoder.decode(
          a.get("path").asText(), java.nio.charset.StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static List<JsonNode> stats(Path t, long version) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode a : adds(t, version)) {
      out.add(JSON.readTree(a.get("stats").asText()));
    }
    return out;
  }

  private static Set<String> keyPaths(JsonNode n, String prefix) {
    Set<String> out = new TreeSet<>();
    n.fields().forEachRemaining(e -> {
      out.add(prefix + e.getKey());
      if (e.getValue().isObject()) {
        out.addAll(keyPaths(e.getValue(), prefix + e.getKey() + "."));
      }
    });
    return out;
  }

  /** Every column of a Parquet file's schema (the root, named by each writer, left out): name, field id, physical type, repetition. */
  private static List<String> parquetSchema(Path file) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet r =
            st.executeQuery("SELECT name, field_id, type, repetition_type FROM parquet_schema('"
                + file.toString().replace("'", "''") + "')")) {
      r.next();
      while (r.next()) {
        out.add(
            r.getString(1) + " id=" + r.getString(2) + " " + r.getString(3) + " " + r.getString(4));
      }
    }
    return out;
  }
}
