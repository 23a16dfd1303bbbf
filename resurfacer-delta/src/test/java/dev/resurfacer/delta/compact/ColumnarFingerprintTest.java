package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta's columnar digest (core's page decoder) against Kernel's row-at-a-time one, on tables
 * delta-spark wrote: flat columns of every type it reads (timestamps as delta-spark's INT96), partitions, deletion vectors, column
 * mapping by name and by id, materialized partition columns (icebergCompatV2). Each file's two
 * digests are equal, a compaction verified by it commits the same rows, and the five faults of a
 * rewrite fail the bins that the columnar digest verifies.
 */
class ColumnarFingerprintTest {
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static final Map<String, Path> TABLES = new LinkedHashMap<>();

  @BeforeAll
  static void writeTables() {
    for (String mode : List.of("none", "name", "id", "compat")) {
      Path p = shared.resolve(mode);
      String t = DeltaSpark.table(p);
      String props = switch (mode) {
        case "none" -> "'delta.enableDeletionVectors' = 'true'";
        case "compat" ->
          "'delta.enableIcebergCompatV2' = 'true', 'delta.columnMapping.mode' = 'name'";
        default ->
          "'delta.enableDeletionVectors' = 'true', 'delta.columnMapping.mode' = '" + mode + "'";
      };
      DeltaSpark.sql("CREATE TABLE " + t
          + " (id BIGINT, part STRING, d DOUBLE, f FLOAT, small DECIMAL(10,2), big DECIMAL(30,5),"
          + " ts TIMESTAMP, ntz TIMESTAMP_NTZ, day DATE, s STRING, tiny TINYINT, short SMALLINT, i INT, flag BOOLEAN, b BINARY)"
          + " USING delta PARTITIONED BY (part) TBLPROPERTIES (" + props + ")");
      for (int i = 0; i < 3; i++) {
        DeltaSpark.sql(
            "INSERT INTO " + t + " SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END,"
                + " CASE id % 5 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0D WHEN 2 THEN 0.0D WHEN 3 THEN NULL ELSE id / 3.0D END,"
                + " CASE id % 4 WHEN 0 THEN float(-0.0) WHEN 1 THEN NULL ELSE float(id) / 7 END,"
                + " CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id * 1.25 - 40 AS DECIMAL(10,2)) END,"
                + " CAST(id AS DECIMAL(30,5)) * 123456789012.34567,"
                + " CASE WHEN id % 4 = 0 THEN NULL ELSE timestamp_micros(id * 86400000123 - 2000000000000000) END,"
                + " CASE WHEN id % 9 = 0 THEN NULL ELSE CAST(timestamp_micros(id * 3600000007) AS TIMESTAMP_NTZ) END,"
                + " date_add(DATE '1969-12-25', CAST(id AS INT)),"
                + " CASE WHEN id % 8 = 0 THEN NULL WHEN id % 8 = 1 THEN '' ELSE concat('s', id % 17, 'é✓') END,"
                + " CAST(id % 120 - 60 AS TINYINT), CAST(id * 31 % 30000 AS SMALLINT), CAST(id * -7 AS INT),"
                + " CASE WHEN id % 3 = 0 THEN NULL ELSE id % 3 = 1 END, CASE WHEN id % 7 = 0 THEN NULL ELSE unhex(hex(id)) END"
                + " FROM range(" + i * 300 + ", " + (i * 300 + 300) + ")");
      }
      if (!mode.equals("compat")) {
        DeltaSpark.sql("DELETE FROM " + t + " WHERE id % 11 = 0");
      }
      TABLES.put(mode, p);
    }
  }

  private DeltaTable copy(String mode, String name) throws IOException {
    return DeltaTables.open(
        name, TestTables.copy(TABLES.get(mode), dir.resolve(name)).toString(), dir);
  }

  @Test
  void everyDataFileDigestsAsKernelReadsIt() throws Exception {
    // one pool across every table, as a run's bins share theirs: arrays grown for one file's pages
    // or left from another table's columns must not change a digest
    try (dev.resurfacer.content.DigestScratch.Pools shared =
        ColumnarFingerprint.newScratchPools()) {
      everyDataFile(shared.outputs());
    }
  }

  private void everyDataFile(dev.resurfacer.content.DigestScratch.Pool shared) throws Exception {
    for (String mode : TABLES.keySet()) {
      DeltaTable table = copy(mode, "files-" + mode);
      DataColumns columns = DataColumns.of(table.latest());
      List<Path> files = parquetFiles(table.localRoot());
      assertThat(files).as(mode).hasSizeGreaterThan(3);
      for (Path f : files) {
        DataFileStatus status =
            new DataFileStatus(LocalStorage.kernelSpelling(f), Files.size(f), 0, Optional.empty());
        Optional<RowDigest> columnar = ColumnarFingerprint.ofOutput(columns, status);
        assertThat(columnar)
            .as(mode + " " + f.getFileName() + " is read by pages")
            .isPresent();
        assertThat(columnar.get())
            .as(mode + " " + f.getFileName())
            .isEqualTo(DeltaCompactor.kernelFingerprint(table.engine(), columns, status));
        assertThat(columnar.get().rows()).isPositive();
        assertThat(ColumnarFingerprint.ofOutput(columns, status, shared))
            .as(mode + " " + f.getFileName() + ", a shared scratch")
            .isEqualTo(columnar);
      }
    }
  }

  @Test
  void compactionVerifiedByPagesKeepsTheRows() throws Exception {
    for (String mode : TABLES.keySet()) {
      for (CompactionOptions.Runner runner :
          List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.KERNEL)) {
        DeltaTable table = copy(mode, "compact-" + mode + "-" + runner);
        List<String> before = rows(table.localRoot());
        CompactionResult r = DeltaCompactor.execute(
            DeltaCompactor.plan(table, CompactionOptions.defaults().runner(runner)),
            Clock.systemUTC());
        assertThat(r.failedBins()).as(mode + " " + runner).isEmpty();
        assertThat(r.committedVersions()).as(mode + " " + runner).hasSize(2);
        assertThat(rows(table.localRoot())).as(mode + " " + runner).isEqualTo(before);
      }
    }
  }

  @Test
  void theFiveFaultsFailTheBinsThePagesVerify() throws Exception {
    Map<String, String> faults = new LinkedHashMap<>();
    faults.put(
        "a flipped -0.0",
        "SELECT * REPLACE (CASE WHEN d = 0 AND signbit(d) THEN 0.0::DOUBLE ELSE d END AS d)"
            + " FROM read_parquet('%1$s')");
    faults.putAll(DeltaDuckDbRunnerTest.rowFaults());
    // the one double whose value hash is a null's: only the digest's null counts tell them apart
    double nullTwin = Double.longBitsToDouble(0x6a09e667f3bcc909L);
    faults.put(
        "a NULL given the value that hashes as a null",
        "SELECT * REPLACE (CASE WHEN d IS NULL THEN " + nullTwin
            + "::DOUBLE ELSE d END AS d) FROM read_parquet('%1$s')");
    int n = 0;
    for (Map.Entry<String, String> fault : faults.entrySet()) {
      DeltaTable table = copy("none", "fault-" + n++);
      DataColumns columns = DataColumns.of(table.latest());
      long version = table.latest().getVersion();
      List<Path> filesBefore = parquetFiles(table.localRoot());
      CompactionResult faulty = DeltaCompactor.execute(
          DeltaCompactor.plan(
              table, CompactionOptions.defaults().runner(CompactionOptions.Runner.DUCKDB)),
          Clock.systemUTC(),
          DeltaCompactor.Seam.afterWrite(written -> {
            List<DataFileStatus> out = DeltaDuckDbRunnerTest.rewriteAll(written, fault.getValue());
            // the faulty files are what the columnar digest reads, not Kernel
            out.forEach(f -> assertThat(ColumnarFingerprint.ofOutput(columns, f))
                .as(fault.getKey())
                .isPresent());
            return out;
          }));
      assertThat(faulty.committedVersions()).as(fault.getKey()).isEmpty();
      assertThat(faulty.failedBins())
          .as(fault.getKey())
          .isNotEmpty()
          .allMatch(f -> f.contains("content verification failed"));
      assertThat(table.latest().getVersion()).as(fault.getKey()).isEqualTo(version);
      assertThat(parquetFiles(table.localRoot())).as(fault.getKey()).isEqualTo(filesBefore);
    }
  }

  /** The typed rows, binary values by their hex (typedRows prints a byte array's identity). */
  private static List<String> rows(Path table) {
    return DeltaSpark.session()
        .sql("SELECT *, hex(b) AS b_hex FROM delta.`" + table + "` ORDER BY id")
        .collectAsList()
        .stream()
        .map(r -> r.toString().replaceAll("\\[B@[0-9a-f]+", ""))
        .toList();
  }

  private static List<Path> parquetFiles(Path root) throws IOException {
    try (var files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log"))
          .sorted()
          .toList();
    }
  }
}
