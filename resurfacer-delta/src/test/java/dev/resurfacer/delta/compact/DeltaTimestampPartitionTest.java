package dev.resurfacer.delta.compact;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tables partitioned by {@code timestamp} and {@code timestamp_ntz} columns, as delta-spark writes
 * them: the log spells a timestamp as the UTC instant ({@code 2024-01-01T00:00:00.000000Z}) and a
 * {@code timestamp_ntz} as wall-clock time ({@code 2024-01-01 12:34:56.123456}); delta-spark
 * before its UTC normalization (or with it turned off) spelled a timestamp as wall-clock time in
 * the writer's session time zone ({@code 2024-01-01 00:00:00}), which delta-spark reads in the
 * reader's session time zone and Kernel in UTC. The new files keep their inputs'
 * spelling, so every reader reads the same instants as before.
 */
class DeltaTimestampPartitionTest {
  private static final String LOS_ANGELES = "America/Los_Angeles";

  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static Path utc;
  private static Path wallClock;

  private static String rows(long from, long to) {
    return "SELECT id, concat('v', id),"
        + " CASE id % 4 WHEN 0 THEN TIMESTAMP'2024-01-01 00:00:00' WHEN 1 THEN TIMESTAMP'2024-01-01 12:34:56.123456'"
        + "   WHEN 2 THEN TIMESTAMP'1969-12-31 23:59:59.999999' ELSE NULL END,"
        + " CASE id % 4 WHEN 0 THEN TIMESTAMP_NTZ'2024-01-01 00:00:00' WHEN 1 THEN TIMESTAMP_NTZ'2024-01-01 12:34:56.123456'"
        + "   WHEN 2 THEN TIMESTAMP_NTZ'0001-01-01 00:00:00' ELSE NULL END"
        + " FROM range(" + from + ", " + to + ")";
  }

  private static void write(Path t) {
    String n = DeltaSpark.table(t);
    sql("CREATE TABLE " + n
        + " (id BIGINT, v STRING, ts TIMESTAMP, ntz TIMESTAMP_NTZ) USING delta PARTITIONED BY (ts, ntz)"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    for (int i = 0; i < 3; i++) {
      sql("INSERT INTO " + n + " " + rows(i * 100, i * 100 + 100));
    }
    sql("DELETE FROM " + n + " WHERE id % 7 = 0");
  }

  @BeforeAll
  static void writeTables() {
    utc = shared.resolve("utc");
    write(utc);
    wallClock = shared.resolve("wall-clock");
    inLosAngeles(() -> {
      sql("SET spark.databricks.delta.write.utcTimestampPartitionValues = false");
      try {
        write(wallClock);
      } finally {
        sql("RESET spark.databricks.delta.write.utcTimestampPartitionValues");
      }
      return null;
    });
  }

  private static <T> T inLosAngeles(java.util.function.Supplier<T> work) {
    String zone = DeltaSpark.session().conf().get("spark.sql.session.timeZone");
    DeltaSpark.session().conf().set("spark.sql.session.timeZone", LOS_ANGELES);
    try {
      return work.get();
    } finally {
      DeltaSpark.session().conf().set("spark.sql.session.timeZone", zone);
    }
  }

  private DeltaTable copy(Path source, String name) throws IOException {
    return DeltaTables.open(name, TestTables.copy(source, dir.resolve(name)).toString(), dir);
  }

  @Test
  void theLogSpellsTimestampsAsDeltaSparkWritesThem() throws IOException {
    Set<String> ts = new HashSet<>();
    Set<String> ntz = new HashSet<>();
    for (JsonNode add : LogEntries.adds(utc, 1)) {
      ts.add(add.get("partitionValues").get("ts").asText(null));
      ntz.add(add.get("partitionValues").get("ntz").asText(null));
    }
    assertThat(ts)
        .containsExactlyInAnyOrder(
            "2024-01-01T00:00:00.000000Z",
            "2024-01-01T12:34:56.123456Z",
            "1969-12-31T23:59:59.999999Z",
            null);
    assertThat(ntz)
        .containsExactlyInAnyOrder(
            "2024-01-01 00:00:00", "2024-01-01 12:34:56.123456", "0001-01-01 00:00:00", null);
    Set<String> wall = new HashSet<>();
    for (JsonNode add : LogEntries.adds(wallClock, 1)) {
      wall.add(add.get("partitionValues").get("ts").asText(null));
    }
    assertThat(wall)
        .as("wall-clock time in Los Angeles, where the literals were read")
        .containsExactlyInAnyOrder(
            "2024-01-01 00:00:00",
            "2024-01-01 12:34:56.123456",
            "1969-12-31 23:59:59.999999",
            null);
  }

  @ParameterizedTest(name = "{0} runner")
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "KERNEL"})
  void compactsEachTimestampPartitionKeepingItsValue(CompactionOptions.Runner runner)
      throws Exception {
    DeltaTable table = copy(utc, "utc-" + runner);
    Path t = table.localRoot();
    List<String> before = DeltaSpark.typedRows(t);
    assertThat(before).hasSize(300 - 43);
    CompactionPlan plan =
        DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
    assertThat(plan.bins()).hasSize(4);
    assertThat(plan.runner()).isEqualTo("duckdb");
    long versionBefore = table.latest().getVersion();

    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.removedFiles()).isEqualTo(12);
    assertThat(r.addedFiles()).isEqualTo(4);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    assertThat(LogEntries.lastOperation(t)).isEqualTo("OPTIMIZE");
    assertPartitionValuesKept(t, versionBefore);
    assertThat(DeltaSpark.session()
            .sql("SELECT count(*) FROM " + DeltaSpark.table(t)
                + " WHERE ts = TIMESTAMP'2024-01-01 12:34:56.123456'"
                + " AND ntz = TIMESTAMP_NTZ'2024-01-01 12:34:56.123456'")
            .collectAsList()
            .get(0)
            .getLong(0))
        .isEqualTo(before.stream()
            .filter(row -> row.contains("ntz:timestamp_ntz=2024-01-01T12:34:56.123456"))
            .count())
        .isPositive();
  }

  @Test
  void wallClockTimestampsKeepTheirSpellingSoDeltaSparkReadsTheSameInstants() throws Exception {
    DeltaTable table = copy(wallClock, "wall");
    Path t = table.localRoot();
    List<String> before = inLosAngeles(() -> DeltaSpark.typedRows(t));
    long versionBefore = table.latest().getVersion();

    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());

    assertThat(r.failedBins()).isEmpty();
    assertThat(r.addedFiles()).isEqualTo(4);
    assertThat(inLosAngeles(() -> DeltaSpark.typedRows(t))).isEqualTo(before);
    assertPartitionValuesKept(t, versionBefore);
  }

  /** Each commit after {@code versionBefore} adds files with exactly the partition values of the files it removes. */
  private static void assertPartitionValuesKept(Path t, long versionBefore) throws IOException {
    for (long v = versionBefore + 1; v <= LogEntries.latestVersion(t); v++) {
      Set<JsonNode> removed = new HashSet<>();
      LogEntries.removes(t, v).forEach(rm -> removed.add(rm.get("partitionValues")));
      Set<JsonNode> added = new HashSet<>();
      LogEntries.adds(t, v).forEach(add -> added.add(add.get("partitionValues")));
      assertThat(removed).hasSize(1);
      assertThat(added).as("version " + v).isEqualTo(removed);
    }
  }
}
