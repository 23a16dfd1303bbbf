package dev.resurfacer.delta.compact;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.s3.S3Bucket;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Column-mapped tables ({@code name} and {@code id} mode) with lists and maps, structs inside them
 * and lists and maps inside structs, as delta-spark writes them: field ids on every struct field,
 * none on a list's element or a map's key and value (the table declares no nested ids). Kernel's
 * writer refuses that mix; both runners write it, and the files equal delta-spark's own.
 */
class DeltaNestedColumnMappingTest {
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static final Map<String, Path> SOURCES = new TreeMap<>();
  /** A data file delta-spark's last insert wrote: the current schema as Spark writes it. */
  private static final Map<String, Path> SPARK_FILES = new TreeMap<>();

  private static final Map<String, JsonNode> SPARK_STATS = new TreeMap<>();

  private static String rows(long from, long to, boolean renamed) {
    return "SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END,"
        + " CASE id % 5 WHEN 0 THEN NULL WHEN 1 THEN CAST(array() AS ARRAY<INT>) ELSE array(CAST(id AS INT), NULL, CAST(id * 2 AS INT)) END,"
        + " CASE id % 4 WHEN 0 THEN NULL WHEN 1 THEN CAST(map() AS MAP<STRING, INT>) ELSE map(concat('k', id), CAST(id AS INT), 'z', NULL) END,"
        + " CASE WHEN id % 6 = 0 THEN NULL ELSE array(named_struct('" + (renamed ? "a2" : "a")
        + "', CAST(id AS INT), 'b', concat('b', id)"
        + (renamed ? ", 'e', id / 4.0D" : "") + "), NULL) END,"
        + " map(concat('q', id), CASE WHEN id % 3 = 0 THEN NULL ELSE named_struct('c', CAST(id AS INT), 'd', array('x', NULL, concat('d', id))) END),"
        + " CASE WHEN id % 9 = 0 THEN NULL ELSE named_struct('x', array(CAST(id AS INT)),"
        + "   'y', map(CAST(id AS INT), array(concat('y', id)), CAST(-id AS INT), CAST(NULL AS ARRAY<STRING>))) END,"
        + " array(array(id, id + 1), CAST(array() AS ARRAY<BIGINT>), NULL)"
        + " FROM range(" + from + ", " + to + ")";
  }

  @BeforeAll
  static void writeTables() throws IOException {
    for (String mode : List.of("name", "id")) {
      Path t = shared.resolve(mode);
      String n = DeltaSpark.table(t);
      sql("CREATE TABLE " + n
          + " (id BIGINT, part STRING, arr ARRAY<INT>, m MAP<STRING, INT>, arrs ARRAY<STRUCT<a: INT, b: STRING>>,"
          + " ms MAP<STRING, STRUCT<c: INT, d: ARRAY<STRING>>>, s STRUCT<x: ARRAY<INT>, y: MAP<INT, ARRAY<STRING>>>,"
          + " aa ARRAY<ARRAY<BIGINT>>) USING delta PARTITIONED BY (part)"
          + " TBLPROPERTIES ('delta.columnMapping.mode' = '" + mode
          + "', 'delta.enableDeletionVectors' = 'true')");
      for (int i = 0; i < 3; i++) {
        sql("INSERT INTO " + n + " " + rows(i * 100, i * 100 + 100, false));
      }
      // a field of the struct inside the list renamed, and one added to it: old files lack it
      sql("ALTER TABLE " + n + " RENAME COLUMN arrs.element.a TO a2");
      sql("ALTER TABLE " + n + " ADD COLUMNS (arrs.element.e DOUBLE)");
      sql("INSERT INTO " + n + " " + rows(300, 400, true));
      long v = LogEntries.latestVersion(t);
      SPARK_FILES.put(mode, LogEntries.addedFiles(t, v).get(0));
      SPARK_STATS.put(mode, LogEntries.stats(LogEntries.adds(t, v).get(0)));
      sql("DELETE FROM " + n + " WHERE id % 7 = 0");
      SOURCES.put(mode, t);
    }
  }

  private DeltaTable copy(String mode, String name) throws IOException {
    return DeltaTables.open(
        name, TestTables.copy(SOURCES.get(mode), dir.resolve(name)).toString(), dir);
  }

  @ParameterizedTest(name = "{0} mode, {1} runner")
  @CsvSource({"name, duckdb", "name, kernel", "id, duckdb", "id, kernel"})
  void compactsListsAndMapsAsDeltaSparkWritesThem(String mode, String runner) throws Exception {
    DeltaTable table = copy(mode, mode + "-" + runner);
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    assertThat(before).hasSize(400 - 58);
    long versionBefore = table.latest().getVersion();
    assertThat(
            DeltaCompactor.plan(table, CompactionOptions.defaults()).preview().runner())
        .as("DuckDB writes lists and maps")
        .isEqualTo("duckdb");

    CompactionOptions options = CompactionOptions.defaults()
        .runner(
            runner.equals("duckdb")
                ? CompactionOptions.Runner.DUCKDB
                : CompactionOptions.Runner.KERNEL);
    CompactionResult r =
        DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.plan().runner()).isEqualTo(runner);
    assertThat(r.removedFiles()).isEqualTo(8);
    assertThat(r.addedFiles()).isEqualTo(2);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    assertThat(LogEntries.lastOperation(t)).isEqualTo("OPTIMIZE");

    List<String> sparkSchema = LogEntries.parquetSchema(SPARK_FILES.get(mode));
    assertThat(sparkSchema)
        .as("Spark's file: ids on struct fields, none on element, key and value")
        .anyMatch(c -> c.startsWith("element id=null"))
        .anyMatch(c -> c.startsWith("key id=null"))
        .filteredOn(c -> c.startsWith("col-"))
        .allMatch(c -> !c.contains("id=null"));
    List<LiveFile> live = LiveFiles.of(table, table.latest());
    assertThat(live).hasSize(2);
    for (LiveFile f : live) {
      assertThat(LogEntries.parquetSchema(LocalStorage.path(f.file())))
          .as("Parquet names, field ids and types of " + f.logPath())
          .isEqualTo(sparkSchema);
    }
    JsonNode sparkStats = SPARK_STATS.get(mode);
    for (long v = versionBefore + 1; v <= table.latest().getVersion(); v++) {
      for (JsonNode add : LogEntries.adds(t, v)) {
        JsonNode s = LogEntries.stats(add);
        assertThat(LogEntries.keyPaths(s.get("minValues")))
            .isEqualTo(LogEntries.keyPaths(sparkStats.get("minValues")));
        assertThat(LogEntries.keyPaths(s.get("maxValues")))
            .isEqualTo(LogEntries.keyPaths(sparkStats.get("maxValues")));
        assertThat(LogEntries.keyPaths(s.get("nullCount")))
            .as("null counts of the leaf columns, as Kernel's writer gives them")
            .isSubsetOf(LogEntries.keyPaths(sparkStats.get("nullCount")));
      }
    }
    // and delta-spark goes on writing and reading the table
    sql("INSERT INTO " + DeltaSpark.table(t) + " " + rows(400, 410, true));
    assertThat(DeltaSpark.typedRows(t)).hasSize(before.size() + 10).containsAll(before);
  }

  /**
   * On {@code s3://} (s3proxy) Kernel's runner writes the files in the scratch directory, gives
   * them their field ids and uploads them; the table downloaded is what delta-spark reads.
   */
  @Test
  void onS3KernelsRunnerUploadsTheFilesWithTheirFieldIds() throws Exception {
    Path local = TestTables.copy(SOURCES.get("id"), dir.resolve("local"));
    List<String> before = DeltaSpark.typedRows(local);
    try (S3Bucket s3 = new S3Bucket("nested")) {
      String location = s3.upload(local, "t");
      Map<String, String> props = new HashMap<>(s3.properties());
      props.put("s3.single-writer", "true");
      ResurfacerConfig config = new ResurfacerConfig(
          Map.of(
              "deltas",
              new CatalogConfig(
                  "deltas", "delta", null, null, props, Set.of(), Map.of("t.t", location))),
          null);
      try (DeltaTable table = DeltaTables.find("t.t", config, dir).orElseThrow()) {
        CompactionResult r = DeltaCompactor.execute(
            DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());
        assertThat(r.plan().runner()).isEqualTo("kernel");
        assertThat(r.failedBins()).isEmpty();
        assertThat(r.addedFiles()).isEqualTo(2);
      }
      Path back = s3.download("t", dir.resolve("back"));
      assertThat(DeltaSpark.typedRows(back)).isEqualTo(before);
      List<String> sparkSchema = LogEntries.parquetSchema(SPARK_FILES.get("id"));
      for (Path f : LogEntries.addedFiles(back, LogEntries.latestVersion(back))) {
        assertThat(LogEntries.parquetSchema(f)).isEqualTo(sparkSchema);
      }
      assertThat(LogEntries.lastOperation(back)).isEqualTo("OPTIMIZE");
    }
  }
}
