package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.scan.LogicalRows;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.iceberg.testing.ChildJvms;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.spark.ConnectSql;
import dev.resurfacer.spark.testing.SparkCluster;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --engine spark} on Delta tables: delta-spark on a real standalone cluster with Spark Connect
 * on loopback (its extension next to Iceberg's, {@code spark_catalog} = Delta's catalog) writes the
 * tables; OPTIMIZE, OPTIMIZE … ZORDER BY and VACUUM run there through the CLI and the engine SPI,
 * previewed and fenced by us. Rows read back identical by Spark and by Delta Kernel, type-tagged; the
 * preview names exactly the files delta-spark removes; a VACUUM whose dry run reaches a file our
 * vacuum keeps is refused.
 */
class SparkDeltaCliTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Path DIR = SparkEngineCliTest.tempDir();
  /** Shared with {@link SparkEngineCliTest} (its Iceberg catalog is unused here); closed at JVM exit. */
  static final SparkCluster CLUSTER = SparkEngineCliTest.CLUSTER;

  static final List<String> COLUMNS = List.of("id", "cat", "amount", "score", "day", "note");
  static ConnectSql sql;

  @BeforeAll
  static void start() throws Exception {
    CLUSTER.start();
    sql = ConnectSql.open(CLUSTER.remote(), Map.of());
    StringBuilder tables = new StringBuilder();
    for (String name : List.of("events", "vacuumed", "purged", "unreached")) {
      tables
          .append("      raw.")
          .append(name)
          .append(": ")
          .append(DIR.resolve(name))
          .append('\n');
    }
    Files.writeString(DIR.resolve("resurfacer.yml"), """
        catalogs:
          deltas:
            type: delta
            tables:
        %sengines:
          spark:
            remote: %s
            conf:
              # delta-spark's VACUUM lists with this many tasks (Spark's default: 10,000)
              spark.sql.sources.parallelPartitionDiscovery.parallelism: "2"
        """.formatted(tables, CLUSTER.remote()));
  }

  @AfterAll
  static void stop() {
    if (sql != null) {
      sql.close();
    }
  }

  static String relation(String name) {
    return "delta.`" + DIR.resolve(name) + "`";
  }

  /**
   * A Delta table partitioned by {@code cat}, written by delta-spark in four inserts of 50 rows (each
   * a few small files per partition), then a delete of every 7th row (copy-on-write: tombstones) and
   * an update to {@code -0.0}; decimals, dates, nulls.
   */
  static void write(String name, String properties) {
    sql.rows("CREATE TABLE " + relation(name)
        + " (id BIGINT, cat STRING, amount DECIMAL(12,2), score DOUBLE, day DATE, note STRING)"
        + " USING delta PARTITIONED BY (cat) TBLPROPERTIES ('delta.deletedFileRetentionDuration'='interval 1 hours'"
        + (properties.isEmpty() ? "" : ", " + properties) + ")");
    for (int batch = 0; batch < 4; batch++) {
      sql.rows("INSERT INTO " + relation(name)
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END,"
          + " CAST(id * 1.25 AS DECIMAL(12,2)), CASE WHEN id % 9 = 0 THEN NULL ELSE id / 7.0 END,"
          + " date_add(DATE '2026-01-01', CAST(id % 30 AS INT)), CASE WHEN id % 4 = 0 THEN NULL ELSE concat('n-', id) END"
          + " FROM range(" + batch * 50 + ", " + (batch * 50 + 50) + ", 1, 2)");
    }
  }

  static DeltaTable open(String name) {
    return DeltaTables.open("raw." + name, DIR.resolve(name).toString(), DIR);
  }

  static CliRun cli(String... args) {
    return SparkEngineCliTest.cliIn(DIR, args);
  }

  static JsonNode json(String... args) throws Exception {
    return SparkEngineCliTest.jsonIn(DIR, args);
  }

  /** The rows delta-spark reads now, each value tagged with the table's Kernel type, sorted. */
  static List<String> sparkRows(String name) {
    StructType schema;
    try (DeltaTable t = open(name)) {
      schema = t.latest().getSchema();
    }
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : sql.rows("SELECT * FROM " + relation(name))) {
      List<String> values = new ArrayList<>();
      for (String c : COLUMNS) {
        Object v = row.get(c);
        values.add(tagged(
            schema.get(c).getDataType(), v instanceof java.sql.Date d ? d.toLocalDate() : v));
      }
      out.add(String.join("|", values));
    }
    out.sort(null);
    return out;
  }

  /** The rows of the latest version as Delta Kernel reads them, tagged as {@link #sparkRows} tags them, sorted. */
  static List<String> kernelRows(DeltaTable t) {
    List<String> out = new ArrayList<>();
    LogicalRows.forEach(t, t.latest(), row -> out.add(text(row)));
    out.sort(null);
    return out;
  }

  private static String text(Row row) {
    List<String> values = new ArrayList<>();
    for (String c : COLUMNS) {
      int i = row.getSchema().indexOf(c);
      DataType type = row.getSchema().at(i).getDataType();
      Object v;
      if (row.isNullAt(i)) {
        v = null;
      } else if (type instanceof LongType) {
        v = row.getLong(i);
      } else if (type instanceof DecimalType) {
        v = row.getDecimal(i);
      } else if (type instanceof DoubleType) {
        v = row.getDouble(i);
      } else if (type instanceof DateType) {
        v = LocalDate.ofEpochDay(row.getInt(i));
      } else {
        v = row.getString(i);
      }
      values.add(tagged(type, v));
    }
    return String.join("|", values);
  }

  /** {@code type:value}; doubles by their bits so -0.0 and 0.0 differ, decimals with their scale. */
  static String tagged(DataType type, Object v) {
    if (v == null) {
      return type + ":null";
    }
    if (v instanceof Double d) {
      return type + ":" + Long.toHexString(Double.doubleToRawLongBits(d));
    }
    if (v instanceof BigDecimal b) {
      return type + ":" + b.toPlainString();
    }
    return type + ":" + v;
  }

  static Set<StoredFile> live(DeltaTable t) {
    return LiveFiles.of(t, t.latest()).stream().map(LiveFile::file).collect(Collectors.toSet());
  }

  static Set<Path> files(String name) throws Exception {
    try (Stream<Path> walk = Files.walk(DIR.resolve(name))) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  static Map<String, Object> lastHistory(String name) {
    return sql.rows("DESCRIBE HISTORY " + relation(name) + " LIMIT 1").get(0);
  }

  @Test
  void optimizeThenZOrderRunOnDeltaSparkRemovingExactlyThePreviewedFiles() throws Exception {
    write("events", "");
    sql.rows("DELETE FROM " + relation("events") + " WHERE id % 7 = 0");
    sql.rows("UPDATE " + relation("events") + " SET score = -0.0 WHERE id % 5 = 0");
    List<String> before = sparkRows("events");
    assertThat(before).hasSize(200 - 29);
    try (DeltaTable t = open("events")) {
      assertThat(kernelRows(t)).isEqualTo(before);
      Set<StoredFile> liveBefore = live(t);
      long version = t.latest().getVersion();

      JsonNode plan = json("compact", "raw.events");
      assertThat(plan.get("outcome").asText()).as(plan.toString()).isEqualTo("previewed");
      assertThat(plan.at("/metrics/files_to_rewrite").asLong())
          .isEqualTo(liveBefore.size())
          .isGreaterThan(2);
      assertThat(t.latest().getVersion()).isEqualTo(version);

      JsonNode done = json("compact", "raw.events", "--yes");
      assertThat(done.get("outcome").asText()).as(done.toString()).isEqualTo("done");
      assertThat(done.at("/metrics/rewritten_files").asLong())
          .isEqualTo(plan.at("/metrics/files_to_rewrite").asLong());
      assertThat(done.at("/metrics/rewritten_bytes").asLong())
          .isEqualTo(plan.at("/metrics/bytes_to_rewrite").asLong());
      assertThat(done.at("/metrics/preview_mismatch").asLong()).isZero();
      assertThat(done.get("message").asText())
          .contains("verified: " + before.size() + " rows, checksum ")
          .contains("the files it removed are the preview's");
      assertThat(lastHistory("events").get("operation")).isEqualTo("OPTIMIZE");
      Set<StoredFile> liveAfter = live(t);
      assertThat(liveAfter)
          .doesNotContainAnyElementsOf(liveBefore)
          .hasSize(2); // one file per partition
      assertThat(kernelRows(t)).isEqualTo(before);
      assertThat(sparkRows("events")).isEqualTo(before);

      // bin-pack again: every partition is one file now, nothing to do (delta-spark agrees: no
      // commit)
      JsonNode again = json("compact", "raw.events", "--yes");
      assertThat(again.get("outcome").asText()).as(again.toString()).isEqualTo("nothing_to_do");
      assertThat(lastHistory("events").get("operation")).isEqualTo("OPTIMIZE");

      // z-order: delta-spark rewrites every file of every partition, one file alone included; the
      // preview says so
      JsonNode zplan = json("compact", "raw.events", "--strategy", "zorder", "--columns", "id,day");
      assertThat(zplan.get("outcome").asText()).as(zplan.toString()).isEqualTo("previewed");
      assertThat(zplan.at("/metrics/files_to_rewrite").asLong()).isEqualTo(2);
      JsonNode zdone =
          json("compact", "raw.events", "--strategy", "zorder", "--columns", "id,day", "--yes");
      assertThat(zdone.get("outcome").asText()).as(zdone.toString()).isEqualTo("done");
      assertThat(zdone.at("/metrics/rewritten_files").asLong()).isEqualTo(2);
      assertThat(zdone.at("/metrics/preview_mismatch").asLong()).isZero();
      Map<String, Object> z = lastHistory("events");
      assertThat(z.get("operation")).isEqualTo("OPTIMIZE");
      assertThat(String.valueOf(((Map<?, ?>) z.get("operationParameters")).get("zOrderBy")))
          .contains("id")
          .contains("day");
      assertThat(live(t)).doesNotContainAnyElementsOf(liveAfter);
      assertThat(kernelRows(t)).isEqualTo(before);
      assertThat(sparkRows("events")).isEqualTo(before);
    }
  }

  @Test
  void vacuumDeletesOnlyWhatOurPlanNamesAndIsRefusedWhenSparksDryRunReachesFurther()
      throws Exception {
    write("vacuumed", "");
    Path stray = DIR.resolve("vacuumed/cat=a/stray-leftover.parquet");
    Files.write(stray, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(stray, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    // delta-spark's VACUUM enters _change_data; ours never does (its files stay): the dry run
    // reaches further
    Path changeData =
        Files.createDirectories(DIR.resolve("vacuumed/_change_data")).resolve("cdc-old.parquet");
    Files.write(changeData, new byte[] {4, 5, 6});
    Files.setLastModifiedTime(changeData, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    List<String> before = sparkRows("vacuumed");
    Set<Path> filesBefore = files("vacuumed");

    CliRun refused = cli("vacuum", "raw.vacuumed", "--retention", "1h", "--yes");
    assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(Main.REFUSED);
    assertThat(refused.err().strip().lines())
        .hasSize(1)
        .first()
        .asString()
        .contains("delta-spark's VACUUM would delete 1 file(s) our vacuum keeps")
        .contains("_change_data/cdc-old.parquet");
    assertThat(files("vacuumed")).isEqualTo(filesBefore);
    Files.delete(changeData);

    JsonNode plan = json("vacuum", "raw.vacuumed", "--retention", "1h");
    assertThat(plan.get("outcome").asText()).as(plan.toString()).isEqualTo("previewed");
    assertThat(plan.at("/metrics/spark_candidates").asLong()).isEqualTo(1);
    assertThat(plan.at("/metrics/files_to_delete").asLong()).isEqualTo(1);
    assertThat(stray).exists();
    JsonNode done = json("vacuum", "raw.vacuumed", "--retention", "1h", "--yes");
    assertThat(done.get("outcome").asText()).as(done.toString()).isEqualTo("done");
    assertThat(done.at("/metrics/deleted_files").asLong()).isEqualTo(1);
    assertThat(stray).doesNotExist();
    Set<Path> expected = new TreeSet<>(filesBefore);
    expected.remove(stray);
    expected.remove(changeData);
    assertThat(files("vacuumed").stream().filter(p -> !p.toString().contains("_delta_log")))
        .containsExactlyInAnyOrderElementsOf(
            expected.stream().filter(p -> !p.toString().contains("_delta_log")).toList());
    assertThat(sparkRows("vacuumed")).isEqualTo(before);
    try (DeltaTable t = open("vacuumed")) {
      assertThat(kernelRows(t)).isEqualTo(before);
    }
  }

  /** The engine SPI as a library caller uses it; a lone file our planner would rewrite only to purge deleted rows is refused. */
  @Test
  void libraryCallersGetTheSameExecutorsAndAPurgeDeltaSparkWouldSkipIsRefused() throws Exception {
    sql.rows("CREATE TABLE " + relation("purged")
        + " (id BIGINT, cat STRING, amount DECIMAL(12,2), score DOUBLE, day DATE, note STRING)"
        + " USING delta PARTITIONED BY (cat) TBLPROPERTIES ('delta.enableDeletionVectors'='true')");
    sql.rows("INSERT INTO " + relation("purged")
        + " SELECT /*+ COALESCE(1) */ id, 'a', CAST(id AS DECIMAL(12,2)), id / 3.0,"
        + " DATE '2026-01-01', 'x' FROM range(0, 100)");
    sql.rows("DELETE FROM " + relation("purged") + " WHERE id % 2 = 0");
    try (DeltaTable t = open("purged");
        ExecutionEngine spark = ExecutionEngines.provider("spark")
            .open(new EngineSettings("spark", Map.of("remote", CLUSTER.remote()), Set.of()))) {
      assertThat(LiveFiles.of(t, t.latest()))
          .hasSize(1)
          .allMatch(f -> f.deletionVector().isPresent());
      OperationExecutor<Compact, DeltaTable> compact = executor(spark, Compact.class);
      Set<Path> filesBefore = files("purged");
      long version = t.latest().getVersion();
      for (Mode mode : Mode.values()) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> compact.execute(Compact.binpack(), t, mode))
            .isInstanceOf(dev.resurfacer.SafetyRefusal.class)
            .hasMessageContaining("alone to purge its deleted rows")
            .hasMessageNotContaining("\n");
      }
      assertThat(files("purged")).isEqualTo(filesBefore);
      assertThat(t.latest().getVersion()).isEqualTo(version);
      // with a threshold above its deleted share the plan leaves it, and so does delta-spark
      Step nothing = compact.execute(
          Compact.binpack().withOption("delete-ratio-threshold", "0.9"), t, Mode.COMMIT);
      assertThat(nothing.outcome()).as(nothing.message()).isEqualTo(Outcome.NOTHING_TO_DO);
      assertThat(t.latest().getVersion()).isEqualTo(version);
    }
  }

  @SuppressWarnings("unchecked")
  static <O extends dev.resurfacer.maintain.Operation> OperationExecutor<O, DeltaTable> executor(
      ExecutionEngine engine, Class<O> type) {
    for (OperationExecutor<?, DeltaTable> e : engine.executors("delta", DeltaTable.class)) {
      if (e.operationType() == type) {
        return (OperationExecutor<O, DeltaTable>) e;
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " executor for delta on spark");
  }

  @Test
  void theEnginesTableSaysWhatRunsAndAnUnreachableClusterIsOneLine() throws Exception {
    CliRun engines = CliRun.run(DIR, "engines");
    assertThat(engines.out())
        .containsPattern("spark +delta +compact +works")
        .containsPattern("spark +delta +vacuum +works")
        .containsPattern("spark +delta +checkpoint +refused")
        .containsPattern("spark +delta +cleanup-log +refused");

    sql.rows("CREATE TABLE " + relation("unreached") + " (id BIGINT) USING delta");
    Path yml = DIR.resolve("unreachable.yml");
    Files.writeString(
        yml,
        Files.readString(DIR.resolve("resurfacer.yml"))
            .replace(CLUSTER.remote(), "sc://127.0.0.1:" + ChildJvms.freePort()));
    CliRun unreachable = CliRun.run(
        DIR, "vacuum", "raw.unreached", "--config", yml.toString(), "--engine", "spark", "--yes");
    assertThat(unreachable.exitCode()).isEqualTo(2);
    assertThat(unreachable.err().strip())
        .startsWith("error: cannot reach Spark Connect at sc://127.0.0.1:")
        .doesNotContain("\n");
  }
}
