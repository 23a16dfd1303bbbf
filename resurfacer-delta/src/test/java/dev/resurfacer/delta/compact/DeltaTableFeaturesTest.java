package dev.resurfacer.delta.compact;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.resurfacer.SafetyRefusal;
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
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Table features whose rules compaction writes by: type widening (old files hold the narrower
 * types, new ones the table's) and icebergCompatV2 (column mapping, nested field ids on lists and
 * maps, INT64 timestamps, partition columns materialized in the files, {@code
 * ICEBERG_COMPAT_VERSION} tags), on tables delta-spark wrote. And
 * what is refused at plan, with nothing written, exactly as compact refuses it: UniForm (delta-spark
 * 4.1 here cannot create it without the delta-iceberg jar, so the log declares it), row tracking, a
 * partition value Kernel cannot read.
 */
class DeltaTableFeaturesTest {
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static Path widened;
  private static Path compat;
  private static Path widenedSparkFile;
  private static Path compatSparkFile;

  @BeforeAll
  static void writeTables() throws IOException {
    widened = shared.resolve("widened");
    String w = DeltaSpark.table(widened);
    sql("CREATE TABLE " + w
        + " (id INT, s SMALLINT, b BYTE, f FLOAT, d DATE, dec DECIMAL(5,2), i2d INT, l2dec BIGINT,"
        + " st STRUCT<x: INT>, arr ARRAY<INT>, m MAP<INT, INT>, part STRING) USING delta PARTITIONED BY (part)"
        + " TBLPROPERTIES ('delta.enableTypeWidening' = 'true', 'delta.enableDeletionVectors' = 'true',"
        + " 'delta.feature.timestampNtz' = 'supported')");
    for (int i = 0; i < 2; i++) {
      sql("INSERT INTO " + w
          + " SELECT CAST(id AS INT), CAST(id * 3 AS SMALLINT), CAST(id % 100 AS BYTE), CAST(id / 7.0 AS FLOAT),"
          + " date_add(DATE '1969-12-20', CAST(id AS INT)), CAST(id * 1.25 AS DECIMAL(5,2)), CAST(-id AS INT), id * 1000000007,"
          + " named_struct('x', CAST(id AS INT)), array(CAST(id AS INT), NULL), map(CAST(id AS INT), CAST(-id AS INT)),"
          + " CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END FROM range(" + i * 100 + ", "
          + (i * 100 + 100) + ")");
    }
    for (String change : List.of(
        "id TYPE BIGINT",
        "s TYPE INT",
        "b TYPE SMALLINT",
        "f TYPE DOUBLE",
        "d TYPE TIMESTAMP_NTZ",
        "dec TYPE DECIMAL(10,4)",
        "i2d TYPE DOUBLE",
        "l2dec TYPE DECIMAL(22,0)",
        "st.x TYPE BIGINT",
        "arr.element TYPE BIGINT",
        "m.value TYPE BIGINT")) {
      sql("ALTER TABLE " + w + " ALTER COLUMN " + change);
    }
    sql(
        "INSERT INTO " + w
            + " SELECT id * 100000000, CAST(id * 100000 AS INT), CAST(id * 100 AS SMALLINT), id / 7.0D,"
            + " CAST(timestamp_micros(id * 3600000007) AS TIMESTAMP_NTZ), CAST(id * 1.2345 AS DECIMAL(10,4)), id / 3.0D,"
            + " CAST(id AS DECIMAL(22,0)) * 100000000000000, named_struct('x', id * 100000000), array(id * 100000000, NULL),"
            + " map(CAST(id AS INT), id * 100000000), CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END FROM range(200, 300)");
    widenedSparkFile =
        LogEntries.addedFiles(widened, LogEntries.latestVersion(widened)).get(0);
    sql("DELETE FROM " + w + " WHERE id % 7 = 0");

    compat = shared.resolve("compat");
    String c = DeltaSpark.table(compat);
    sql(
        "CREATE TABLE " + c
            + " (id BIGINT, part STRING, ts TIMESTAMP, arr ARRAY<INT>, m MAP<STRING, STRUCT<a: INT, l: ARRAY<STRING>>>,"
            + " s STRUCT<x: ARRAY<STRING>, y: MAP<INT, INT>>, pts TIMESTAMP) USING delta PARTITIONED BY (part, pts)"
            + " TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.columnMapping.mode' = 'name')");
    for (int i = 0; i < 3; i++) {
      if (i == 2) {
        // no deletion vectors under icebergCompatV2: the update rewrites its files, the insert
        // after it adds one more per partition
        sql("UPDATE " + c + " SET arr = array(-1) WHERE id % 11 = 0");
      }
      sql("INSERT INTO " + c
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END, timestamp_micros(id * 86400000123),"
          + " CASE WHEN id % 5 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL) END,"
          + " map(concat('k', id), named_struct('a', CAST(id AS INT), 'l', array(concat('l', id)))),"
          + " named_struct('x', array(concat('x', id)), 'y', map(CAST(id AS INT), CAST(-id AS INT))),"
          + " CASE WHEN id % 2 = 0 THEN TIMESTAMP'2024-01-01 01:02:03.456789' END"
          + " FROM range(" + i * 100 + ", " + (i * 100 + 100) + ")");
    }
    compatSparkFile =
        LogEntries.addedFiles(compat, LogEntries.latestVersion(compat)).get(0);
  }

  private DeltaTable copy(Path source, String name) throws IOException {
    return DeltaTables.open(name, TestTables.copy(source, dir.resolve(name)).toString(), dir);
  }

  @ParameterizedTest(name = "{0} runner")
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "KERNEL"})
  void typeWidenedTablesCompactToTheWideTypes(CompactionOptions.Runner runner) throws Exception {
    DeltaTable table = copy(widened, "widened-" + runner);
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    assertThat(before)
        .hasSize(300 - 43)
        .anyMatch(r -> r.contains("d:timestamp_ntz=1969-12-21T00:00/"));

    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.plan().runner()).isEqualTo(runner.name().toLowerCase(java.util.Locale.ROOT));
    assertThat(r.addedFiles()).isEqualTo(2);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    assertThat(LogEntries.lastOperation(t)).isEqualTo("OPTIMIZE");
    List<String> sparkSchema = LogEntries.parquetSchema(widenedSparkFile);
    for (LiveFile f : LiveFiles.of(table, table.latest())) {
      assertThat(LogEntries.parquetSchema(LocalStorage.path(f.file())))
          .as("the table's types, as Spark's last insert wrote them")
          .isEqualTo(sparkSchema);
    }
    // the stats are in the wide types: Spark skips both files on an id above every one
    assertThat(DeltaSpark.session()
            .sql("SELECT count(*) FROM " + DeltaSpark.table(t) + " WHERE id > 29900000000")
            .collectAsList()
            .get(0)
            .getLong(0))
        .isZero();
  }

  @ParameterizedTest(name = "{0} runner")
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "KERNEL"})
  void icebergCompatV2TablesCompactByItsRules(CompactionOptions.Runner runner) throws Exception {
    DeltaTable table = copy(compat, "compat-" + runner);
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    long versionBefore = table.latest().getVersion();

    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.addedFiles()).isEqualTo(2);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    assertThat(LogEntries.lastOperation(t)).isEqualTo("OPTIMIZE");
    List<String> sparkSchema = LogEntries.parquetSchema(compatSparkFile);
    assertThat(sparkSchema)
        .as("Spark writes nested ids and INT64 timestamps here")
        .anyMatch(c -> c.startsWith("element id=") && !c.startsWith("element id=null"))
        .noneMatch(c -> c.contains("INT96"));
    for (LiveFile f : LiveFiles.of(table, table.latest())) {
      assertThat(LogEntries.parquetSchema(LocalStorage.path(f.file()))).isEqualTo(sparkSchema);
    }
    for (long v = versionBefore + 1; v <= table.latest().getVersion(); v++) {
      for (JsonNode action : LogEntries.actions(t, v)) {
        assertThat(action.has("metaData") || action.has("protocol"))
            .as("an OPTIMIZE changes no metadata")
            .isFalse();
      }
      for (JsonNode add : LogEntries.adds(t, v)) {
        assertThat(add.get("tags").get("ICEBERG_COMPAT_VERSION").asText()).isEqualTo("2");
        assertThat(LogEntries.stats(add).get("numRecords").asLong()).isPositive();
      }
    }
  }

  @Test
  void uniFormIsRefusedAtPlanAndByCompactWithNothingWritten() throws Exception {
    DeltaTable table = copy(compat, "uniform");
    Path t = table.localRoot();
    long v = LogEntries.latestVersion(t);
    // the commit delta-spark with delta-iceberg would write for SET TBLPROPERTIES
    // ('delta.universalFormat.enabledFormats' = 'iceberg')
    ObjectNode metaData = null;
    for (long i = 0; i <= v; i++) {
      for (JsonNode a : LogEntries.actions(t, i)) {
        if (a.has("metaData")) {
          metaData = (ObjectNode) a.deepCopy();
        }
      }
    }
    ((ObjectNode) metaData.get("metaData").get("configuration"))
        .put("delta.universalFormat.enabledFormats", "iceberg");
    String commitInfo = "{\"commitInfo\":{\"timestamp\":" + System.currentTimeMillis()
        + ",\"operation\":\"SET TBLPROPERTIES\","
        + "\"operationParameters\":{},\"engineInfo\":\"test\"}}";
    Files.writeString(
        t.resolve("_delta_log").resolve(String.format("%020d.json", v + 1)),
        commitInfo + "\n" + LogEntries.JSON.writeValueAsString(metaData) + "\n");
    DeltaTable reopened = DeltaTables.open("uniform", t.toString(), dir);
    List<String> files = LiveFiles.of(reopened, reopened.latest()).stream()
        .map(LiveFile::logPath)
        .sorted()
        .toList();

    assertThatThrownBy(() -> DeltaCompactor.plan(reopened, CompactionOptions.defaults()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("UniForm")
        .hasMessageContaining("delta.universalFormat.enabledFormats = iceberg");
    assertThatThrownBy(() -> DeltaCompactor.execute(
            DeltaCompactor.plan(reopened, CompactionOptions.defaults()), Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("UniForm");
    assertThat(LogEntries.latestVersion(t)).isEqualTo(v + 1);
    assertThat(LiveFiles.of(reopened, reopened.latest()).stream()
            .map(LiveFile::logPath)
            .sorted()
            .toList())
        .isEqualTo(files);
  }

  @Test
  void rowTrackingIsRefusedAtPlanNamingTheFeature() throws Exception {
    Path t = dir.resolve("tracked");
    sql("CREATE TABLE " + DeltaSpark.table(t)
        + " (id BIGINT) USING delta TBLPROPERTIES ('delta.enableRowTracking' = 'true')");
    sql("INSERT INTO " + DeltaSpark.table(t) + " VALUES (1)");
    sql("INSERT INTO " + DeltaSpark.table(t) + " VALUES (2)");
    DeltaTable table = DeltaTables.open("tracked", t.toString(), dir);
    assertThatThrownBy(() -> DeltaCompactor.plan(table, CompactionOptions.defaults()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("rowTracking");
    assertThatThrownBy(() -> DeltaCompactor.execute(
            DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("rowTracking");
  }

  @Test
  void aPartitionValueKernelCannotReadIsRefusedAtPlanNotInABin() throws Exception {
    Path t = dir.resolve("bad-partition");
    sql("CREATE TABLE " + DeltaSpark.table(t)
        + " (id BIGINT, p INT) USING delta PARTITIONED BY (p)");
    sql("INSERT INTO " + DeltaSpark.table(t) + " VALUES (1, 1)");
    sql("INSERT INTO " + DeltaSpark.table(t) + " VALUES (2, 1)");
    // a foreign writer's commit: two files of partition p = 'one', which no integer reads as
    long v = LogEntries.latestVersion(t);
    StringBuilder commit =
        new StringBuilder("{\"commitInfo\":{\"timestamp\":" + System.currentTimeMillis()
            + ",\"operation\":\"WRITE\",\"operationParameters\":{},\"engineInfo\":\"test\"}}\n");
    for (long version = 1; version <= 2; version++) {
      ObjectNode copy = LogEntries.adds(t, version).get(0).deepCopy();
      Path data = LogEntries.addedFiles(t, version).get(0);
      Path moved = t.resolve("p=one").resolve(data.getFileName());
      Files.createDirectories(moved.getParent());
      Files.copy(data, moved);
      copy.put("path", "p=one/" + data.getFileName());
      ((ObjectNode) copy.get("partitionValues")).put("p", "one");
      commit
          .append("{\"add\":")
          .append(LogEntries.JSON.writeValueAsString(copy))
          .append("}\n");
    }
    Files.writeString(
        t.resolve("_delta_log").resolve(String.format("%020d.json", v + 1)), commit.toString());
    DeltaTable table = DeltaTables.open("bad", t.toString(), dir);

    assertThatThrownBy(() -> DeltaCompactor.plan(table, CompactionOptions.defaults()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partition value 'one' of column p");
    assertThatThrownBy(() -> DeltaCompactor.execute(
            DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC()))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partition value 'one' of column p");
    assertThat(LogEntries.latestVersion(t)).isEqualTo(v + 1);
  }
}
