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
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DuckDB runner against Kernel's own runner on the same delta-spark table of odd values
 * (NaN, -0.0, infinities, subnormals, nulls, decimals, timestamps with and without time zone, a nested struct,
 * deletion vectors): the same rows, the same stats on the new files, the same z-order.
 */
class DeltaDuckDbRunnerTest {
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() {
    source = shared.resolve("odd");
    String t = DeltaSpark.table(source);
    DeltaSpark.sql("CREATE TABLE " + t
        + " (id BIGINT, part STRING, d DOUBLE, f FLOAT, small DECIMAL(10,2), big DECIMAL(30,5),"
        + " ts TIMESTAMP, ntz TIMESTAMP_NTZ, day DATE, s STRING, tiny TINYINT, short SMALLINT, flag BOOLEAN,"
        + " nested STRUCT<a: INT, at: TIMESTAMP, inner: STRUCT<x: STRING>>) USING delta PARTITIONED BY (part)"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    for (int i = 0; i < 3; i++) {
      DeltaSpark.sql(
          "INSERT INTO " + t + " SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END,"
              + " CASE id % 7 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0D WHEN 2 THEN 0.0D WHEN 3 THEN double('-Infinity')"
              + "   WHEN 4 THEN NULL WHEN 5 THEN CASE id % 3 WHEN 0 THEN double('Infinity') WHEN 1 THEN 4.9E-324D * id ELSE -4.9E-324D * id END"
              + "   ELSE id / 3.0D END,"
              + " CASE id % 5 WHEN 0 THEN float('NaN') WHEN 1 THEN float(-0.0) WHEN 2 THEN NULL"
              + "   WHEN 3 THEN CASE id % 4 WHEN 0 THEN float('Infinity') WHEN 1 THEN float('-Infinity') ELSE float(1.4E-45) * float(id) END"
              + "   ELSE float(id) / 7 END,"
              + " CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id * 1.25 - 40 AS DECIMAL(10,2)) END,"
              + " CAST(id AS DECIMAL(30,5)) * 123456789012.34567,"
              + " CASE WHEN id % 4 = 0 THEN NULL ELSE timestamp_micros(id * 86400000123 - 2000000000000000) END,"
              + " CASE WHEN id % 9 = 0 THEN NULL ELSE CAST(timestamp_micros(id * 3600000007) AS TIMESTAMP_NTZ) END,"
              + " date_add(DATE '1969-12-25', CAST(id AS INT)),"
              + " CASE WHEN id % 8 = 0 THEN NULL WHEN id % 8 = 1 THEN '' ELSE concat('s', id, 'é✓', repeat('x', CAST(id % 13 AS INT))) END,"
              + " CAST(id % 120 - 60 AS TINYINT), CAST(id * 31 % 30000 AS SMALLINT), CASE WHEN id % 3 = 0 THEN NULL ELSE id % 3 = 1 END,"
              + " CASE WHEN id % 10 = 0 THEN NULL ELSE named_struct('a', CAST(id AS INT), 'at', timestamp_micros(id * 1000003),"
              + "   'inner', CASE WHEN id % 4 = 0 THEN NULL ELSE named_struct('x', concat('in', id)) END) END"
              + " FROM range(" + i * 200 + ", " + (i * 200 + 200) + ")");
    }
    DeltaSpark.sql("DELETE FROM " + t + " WHERE id % 11 = 0");
  }

  private DeltaTable copy(String name) throws IOException {
    return DeltaTables.open(name, TestTables.copy(source, dir.resolve(name)).toString(), dir);
  }

  @Test
  void binPackGivesTheRowsAndStatsOfKernelsRunner() throws Exception {
    DeltaTable duck = copy("duck");
    DeltaTable kernel = copy("kernel");
    List<String> before = DeltaSpark.typedRows(duck.localRoot());
    assertThat(before).hasSize(600 - 55);

    CompactionPlan plan =
        DeltaCompactor.plan(duck, CompactionOptions.defaults()).preview();
    assertThat(plan.runner()).isEqualTo("duckdb");
    assertThat(plan.runnerReason()).startsWith("memory limit");
    CompactionResult byDuck = DeltaCompactor.execute(
        DeltaCompactor.plan(duck, CompactionOptions.defaults()), Clock.systemUTC());
    CompactionResult byKernel = DeltaCompactor.execute(
        DeltaCompactor.plan(
            kernel, CompactionOptions.defaults().runner(CompactionOptions.Runner.KERNEL)),
        Clock.systemUTC());

    assertThat(byDuck.failedBins()).isEmpty();
    assertThat(byKernel.failedBins()).isEmpty();
    assertThat(byDuck.plan().runner()).isEqualTo("duckdb");
    assertThat(byKernel.plan().runner()).isEqualTo("kernel");
    assertThat(byDuck.removedFiles()).isEqualTo(6);
    assertThat(byDuck.addedFiles()).isEqualTo(2);
    assertThat(DeltaSpark.typedRows(duck.localRoot())).isEqualTo(before);
    assertThat(DeltaSpark.typedRows(kernel.localRoot())).isEqualTo(before);
    assertThat(LiveFiles.of(duck, duck.latest()))
        .allMatch(f -> f.deletionVector().isEmpty());
    assertThat(addStats(duck))
        .as("stats of the new files, by partition")
        .isEqualTo(addStats(kernel));
  }

  @Test
  void zOrderWritesTheRowsInTheOrderOfKernelsRunner() throws Exception {
    assertDuckDbZOrdersAsKernel(copy("duck"), copy("kernel"), List.of("s", "ts", "small", "day"));
  }

  /**
   * Z-orders one copy of a table with the DuckDB runner and another with Kernel's: Spark reads the
   * same type-tagged rows as before, and each partition's files hold the rows in the same order.
   */
  static void assertDuckDbZOrdersAsKernel(
      DeltaTable duck, DeltaTable kernel, List<String> columns) {
    List<String> before = DeltaSpark.typedRows(duck.localRoot());
    CompactionOptions z = CompactionOptions.defaults().zOrder(columns);

    CompactionResult byDuck =
        DeltaCompactor.execute(DeltaCompactor.plan(duck, z), Clock.systemUTC());
    CompactionResult byKernel = DeltaCompactor.execute(
        DeltaCompactor.plan(kernel, z.runner(CompactionOptions.Runner.KERNEL)), Clock.systemUTC());

    assertThat(byDuck.failedBins()).isEmpty();
    assertThat(byDuck.plan().runner()).isEqualTo("duckdb");
    assertThat(byDuck.removedFiles()).isPositive();
    assertThat(byKernel.failedBins()).isEmpty();
    assertThat(DeltaSpark.typedRows(duck.localRoot())).isEqualTo(before);
    assertThat(DeltaSpark.typedRows(kernel.localRoot())).isEqualTo(before);
    assertThat(fileOrder(duck))
        .as("rows in file order, per partition")
        .isEqualTo(fileOrder(kernel))
        .isNotEmpty();
  }

  @Test
  void aFloatingPointZOrderGivesKernelsRowOrder() throws Exception {
    // NaN, -0.0, +0.0, both infinities, nulls and subnormals in both columns; equal keys tie in
    // input order
    assertDuckDbZOrdersAsKernel(copy("duck"), copy("kernel"), List.of("d", "f"));
  }

  /**
   * Verification is what stands between a faulty rewrite and the table: a new file whose one -0.0
   * became +0.0 (same row count) fails its bin for either runner, the new files are deleted and the
   * table is as it was; the same file rewritten unchanged commits, so the refusal is the value's.
   */
  @Test
  void aNewFileWithOneChangedValueFailsVerificationAndLeavesTheTableAsItWas() throws Exception {
    for (CompactionOptions.Runner runner :
        List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.KERNEL)) {
      DeltaTable table = copy("fault-" + runner);
      List<String> before = DeltaSpark.typedRows(table.localRoot());
      long version = table.latest().getVersion();
      List<Path> filesBefore = parquetFiles(table.localRoot());

      CompactionResult faulty = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)),
          Clock.systemUTC(),
          DeltaCompactor.Seam.afterWrite(written ->
              rewrite(written, "CASE WHEN d = 0 AND signbit(d) THEN 0.0::DOUBLE ELSE d END")));

      assertThat(faulty.committedVersions()).as(runner.name()).isEmpty();
      assertThat(faulty.failedBins())
          .as(runner.name())
          .isNotEmpty()
          .allMatch(f ->
              f.contains("content verification failed") && f.contains("with different content"));
      assertThat(table.latest().getVersion()).isEqualTo(version);
      assertThat(parquetFiles(table.localRoot()))
          .as("the bins' new files are deleted")
          .isEqualTo(filesBefore);
      assertThat(DeltaSpark.typedRows(table.localRoot())).isEqualTo(before);

      CompactionResult unchanged = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)),
          Clock.systemUTC(),
          DeltaCompactor.Seam.afterWrite(written -> rewrite(written, "d")));
      assertThat(unchanged.failedBins()).as(runner.name()).isEmpty();
      assertThat(unchanged.committedVersions()).isNotEmpty();
      assertThat(DeltaSpark.typedRows(table.localRoot())).isEqualTo(before);
    }
  }

  /** Each file rewritten in place through DuckDB with column d replaced by {@code d}'s expression, as a faulty runner's output. */
  /**
   * The faults a rewrite could make, each injected into either runner's real output (same row count
   * or not): a NULLed column, one column's values swapped between two rows, a dropped row, a
   * duplicated row. Each fails every bin it touches and leaves the table as it was.
   */
  @Test
  void aNulledColumnASwappedValueADroppedOrDuplicatedRowFailVerification() throws Exception {
    Map<String, String> faults = rowFaults();
    int n = 0;
    for (CompactionOptions.Runner runner :
        List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.KERNEL)) {
      for (Map.Entry<String, String> fault : faults.entrySet()) {
        DeltaTable table = copy("faults-" + n++);
        List<String> before = DeltaSpark.typedRows(table.localRoot());
        long version = table.latest().getVersion();
        List<Path> filesBefore = parquetFiles(table.localRoot());

        CompactionResult faulty = DeltaCompactor.execute(
            DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)),
            Clock.systemUTC(),
            DeltaCompactor.Seam.afterWrite(written -> rewriteAll(written, fault.getValue())));

        String what = runner + ", " + fault.getKey();
        assertThat(faulty.committedVersions()).as(what).isEmpty();
        assertThat(faulty.failedBins())
            .as(what)
            .isNotEmpty()
            .allMatch(f -> f.contains("content verification failed"));
        assertThat(table.latest().getVersion()).as(what).isEqualTo(version);
        assertThat(parquetFiles(table.localRoot())).as(what).isEqualTo(filesBefore);
        assertThat(DeltaSpark.typedRows(table.localRoot())).as(what).isEqualTo(before);
      }
    }
  }

  /**
   * {@code --verify count}: a bin commits when its new files hold its input's live rows as the log
   * counts them (rows less the deletion vectors' deletes), read from the new files' footers, and no
   * value is read (no verification CPU); a dropped or a duplicated row still fails it, for either
   * runner, and the table is as it was.
   */
  @Test
  void countVerificationCommitsTheSameRowsAndRefusesADroppedOrDuplicatedRow() throws Exception {
    Map<String, String> faults = rowFaults();
    int n = 0;
    for (CompactionOptions.Runner runner :
        List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.KERNEL)) {
      CompactionOptions count = CompactionOptions.defaults()
          .runner(runner)
          .verification(CompactionOptions.Verification.COUNT);
      for (String fault : List.of("a dropped row", "a duplicated row")) {
        DeltaTable table = copy("count-fault-" + n++);
        List<String> before = DeltaSpark.typedRows(table.localRoot());
        long version = table.latest().getVersion();
        List<Path> filesBefore = parquetFiles(table.localRoot());

        CompactionResult faulty = DeltaCompactor.execute(
            DeltaCompactor.plan(table, count),
            Clock.systemUTC(),
            DeltaCompactor.Seam.afterWrite(written -> rewriteAll(written, faults.get(fault))));

        String what = runner + ", " + fault;
        assertThat(faulty.committedVersions()).as(what).isEmpty();
        assertThat(faulty.failedBins())
            .as(what)
            .isNotEmpty()
            .allMatch(f -> f.contains("count verification failed"));
        assertThat(table.latest().getVersion()).as(what).isEqualTo(version);
        assertThat(parquetFiles(table.localRoot())).as(what).isEqualTo(filesBefore);
        assertThat(DeltaSpark.typedRows(table.localRoot())).as(what).isEqualTo(before);
      }
      DeltaTable table = copy("count-" + n++);
      List<String> before = DeltaSpark.typedRows(table.localRoot());
      assertThat(LiveFiles.of(table, table.latest()).stream()
              .anyMatch(f -> f.deletionVector().isPresent()))
          .as("the table has deletion vectors for the count to apply")
          .isTrue();

      CompactionResult counted =
          DeltaCompactor.execute(DeltaCompactor.plan(table, count), Clock.systemUTC());

      assertThat(counted.failedBins()).as(runner.name()).isEmpty();
      assertThat(counted.committedVersions()).as(runner.name()).isNotEmpty();
      assertThat(counted.verificationCpuNanos()).as(runner.name()).isZero();
      assertThat(counted.verification()).isEqualTo("count");
      assertThat(counted.render()).contains(", verified by count").doesNotContain("CPU-s");
      assertThat(DeltaSpark.typedRows(table.localRoot())).as(runner.name()).isEqualTo(before);
    }
  }

  /** The faults of a rewrite's rows, each a DuckDB query over a new file ({@code %1$s}) giving its faulty content. */
  static Map<String, String> rowFaults() {
    String all = "read_parquet('%1$s', file_row_number=true)";
    Map<String, String> faults = new java.util.LinkedHashMap<>();
    faults.put(
        "a NULLed column",
        "SELECT * EXCLUDE (file_row_number) REPLACE (NULL::VARCHAR AS s) FROM " + all);
    faults.put(
        "a value swapped between two rows",
        "SELECT * EXCLUDE (file_row_number) REPLACE (CASE file_row_number"
            + " WHEN 0 THEN (SELECT id FROM " + all + " WHERE file_row_number = 1)"
            + " WHEN 1 THEN (SELECT id FROM " + all
            + " WHERE file_row_number = 0) ELSE id END AS id) FROM " + all);
    faults.put(
        "a dropped row",
        "SELECT * EXCLUDE (file_row_number) FROM " + all + " WHERE file_row_number <> 0");
    faults.put(
        "a duplicated row",
        "SELECT * EXCLUDE (file_row_number) FROM " + all
            + " UNION ALL SELECT * EXCLUDE (file_row_number) FROM " + all
            + " WHERE file_row_number = 0");
    return faults;
  }

  static List<DataFileStatus> rewriteAll(List<DataFileStatus> written, String select) {
    List<DataFileStatus> out = new ArrayList<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement st = c.createStatement()) {
      for (DataFileStatus f : written) {
        Path file = f.getPath().startsWith("file:")
            ? Path.of(java.net.URI.create(f.getPath()))
            : Path.of(f.getPath());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        st.execute("COPY (" + String.format(java.util.Locale.ROOT, select, file) + ") TO '" + tmp
            + "' (FORMAT parquet)");
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        out.add(new DataFileStatus(
            f.getPath(), Files.size(file), f.getModificationTime(), f.getStatistics()));
      }
      return out;
    } catch (java.sql.SQLException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<DataFileStatus> rewrite(List<DataFileStatus> written, String d) {
    return rewriteAll(written, "SELECT * REPLACE (" + d + " AS d) FROM read_parquet('%1$s')");
  }

  private static List<Path> parquetFiles(Path root) throws IOException {
    try (var files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
    }
  }

  /** The stats JSON of every file the latest version added, by partition value, without the paths. */
  private static Map<String, List<JsonNode>> addStats(DeltaTable table) throws IOException {
    long version = table.latest().getVersion();
    Map<String, List<JsonNode>> out = new TreeMap<>();
    ObjectMapper json = new ObjectMapper();
    for (long v = version - 1; v <= version; v++) {
      for (String line : Files.readAllLines(
          table.localRoot().resolve("_delta_log").resolve(String.format("%020d.json", v)))) {
        JsonNode a = json.readTree(line);
        if (a.has("add")) {
          out.computeIfAbsent(
                  a.get("add").get("partitionValues").get("part").asText(), k -> new ArrayList<>())
              .add(json.readTree(a.get("add").get("stats").asText()));
        }
      }
    }
    return out;
  }

  /** Each live file's rows in the order the file holds them, by partition. */
  static Map<String, List<String>> fileOrder(DeltaTable table) {
    Map<String, List<String>> out = new TreeMap<>();
    for (LiveFile f : LiveFiles.of(table, table.latest())) {
      List<String> rows =
          out.computeIfAbsent(f.partitionValues().get("part"), k -> new ArrayList<>());
      for (Row r : DeltaSpark.session()
          .read()
          .parquet(LocalStorage.path(f.file()).toString())
          .collectAsList()) {
        rows.add(r.toString());
      }
    }
    return out;
  }
}
