package dev.resurfacer.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark (with Iceberg's own runtime) writes merge-on-read tables and reads them back after our
 * maintenance (the runnable jar, in its own JVM: see this module's pom); it also compacts a copy with its own {@code rewrite_data_files}. Spark and our
 * library share one SQLite JDBC catalog under the same name, so they see the same tables.
 */
class SparkOracleTest {
  static final String CATALOG = "lake";

  @TempDir
  static Path dir;

  static SparkSession spark;
  static JdbcCatalog catalog;

  @BeforeAll
  static void start() throws IOException {
    catalog = SqliteCatalogs.create(CATALOG, dir);
    spark = IcebergSparkSessions.start("resurfacer-oracle", dir, CATALOG);
    sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (catalog != null) {
      catalog.close();
    }
  }

  /** Runs the runnable jar against the shared catalog; returns its output, failing on a non-zero exit. */
  static String resurfacer(String... args) throws IOException {
    String jar = System.getProperty("resurfacer.jar");
    assertThat(Path.of(jar))
        .as("the runnable jar (built by resurfacer-cli's package phase)")
        .exists();
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-jar",
        jar));
    command.addAll(List.of(args));
    command.addAll(List.of(
        "--catalog-name",
        CATALOG,
        "--catalog-uri",
        SqliteCatalogs.uri(dir),
        "--warehouse",
        SqliteCatalogs.warehouse(dir)));
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    try {
      int exit = p.waitFor();
      assertThat(exit)
          .as("resurfacer %s:%n%s%n%s", String.join(" ", args), out, Files.readString(err))
          .isZero();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return out;
  }

  static List<Row> sql(String statement) {
    return spark.sql(statement).collectAsList();
  }

  /** Spark's view of a table: every row, rendered and sorted. */
  static List<String> sparkRows(String table) {
    return spark.sql("SELECT * FROM " + CATALOG + "." + table).collectAsList().stream()
        .map(Row::toString)
        .sorted()
        .toList();
  }

  /** A merge-on-read table with many small files and row-level changes from DELETE, UPDATE and MERGE INTO. */
  static void writeMessy(String table, int formatVersion) {
    String t = CATALOG + "." + table;
    sql(
        "CREATE TABLE " + t
            + " (id BIGINT, cat STRING, amount DECIMAL(10,2), note STRING) USING iceberg"
            + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='" + formatVersion + "',"
            + " 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')");
    for (int batch = 0; batch < 4; batch++) {
      sql("INSERT INTO " + t
          + " SELECT id, CASE WHEN id % 3 = 0 THEN 'a' WHEN id % 3 = 1 THEN 'b' ELSE 'c' END,"
          + " CAST(id * 1.25 AS DECIMAL(10,2)), concat('n-', id) FROM range(" + (batch * 50) + ", "
          + (batch * 50 + 50) + ")");
    }
    sql("DELETE FROM " + t + " WHERE id % 7 = 0");
    sql("UPDATE " + t + " SET amount = amount + 100, note = 'updated' WHERE id % 5 = 0");
    spark
        .sql(
            "SELECT id, 'a' AS cat, CAST(1 AS DECIMAL(10,2)) AS amount, 'merged' AS note FROM range(180, 230)")
        .createOrReplaceTempView("src");
    sql("MERGE INTO " + t + " t USING src s ON t.id = s.id"
        + " WHEN MATCHED AND t.id % 2 = 0 THEN DELETE"
        + " WHEN MATCHED THEN UPDATE SET t.note = s.note"
        + " WHEN NOT MATCHED THEN INSERT *");
  }

  static long deleteFiles(Table table, FileContent content) throws IOException {
    long n = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        n += task.deletes().stream().filter(d -> d.content() == content).count();
      }
    }
    return n;
  }

  /** Our compaction, dangling-delete removal and expiry; Spark must read back what it read before. */
  void maintainAndCompare(String name, int formatVersion) throws IOException {
    writeMessy(name, formatVersion);
    List<String> sparkBefore = sparkRows(name);
    Table table = catalog.loadTable(TableIdentifier.parse(name));
    assertThat(deleteFiles(table, FileContent.POSITION_DELETES))
        .as("Spark wrote merge-on-read deletes")
        .isPositive();
    List<String> oursBefore = Rows.sortedStrings(table);
    assertThat(oursBefore).hasSize(sparkBefore.size());

    long snapshotsBefore = table.currentSnapshot().snapshotId();
    resurfacer("compact", name, "--min-input-files", "2", "--yes");
    table.refresh();
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(snapshotsBefore);
    resurfacer("remove-dangling-deletes", name, "--yes");
    resurfacer("expire", name, "--older-than", "0s", "--retain-last", "1", "--yes");
    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(deleteFiles(table, FileContent.POSITION_DELETES)).isZero();
    assertThat(Rows.sortedStrings(table)).isEqualTo(oursBefore);

    assertThat(sparkRows(name)).isEqualTo(sparkBefore);
    // Spark's own metadata tables agree: no delete files left, every data file readable
    assertThat(sql("SELECT count(*) FROM " + CATALOG + "." + name + ".delete_files")
            .get(0)
            .getLong(0))
        .isZero();
  }

  @Test
  void v2PositionDeletesFromDeleteUpdateMergeReadBackIdentically() throws IOException {
    maintainAndCompare("db.mor_v2", 2);
  }

  @Test
  void v3DeletionVectorsFromDeleteUpdateMergeReadBackIdentically() throws IOException {
    maintainAndCompare("db.mor_v3", 3);
  }

  /** Spark's rewrite_data_files on a registered copy and our compaction on the original hold the same rows. */
  @Test
  void sparkRewriteOnACopyAndOurCompactionAgree() throws IOException {
    writeMessy("db.pair", 2);
    List<String> before = sparkRows("db.pair");
    Table original = catalog.loadTable(TableIdentifier.of("db", "pair"));
    String metadata = ((HasTableOperations) original).operations().current().metadataFileLocation();
    sql("CALL " + CATALOG + ".system.register_table(table => 'db.pair_copy', metadata_file => '"
        + metadata + "')");
    assertThat(sparkRows("db.pair_copy")).isEqualTo(before);

    List<Row> sparkResult =
        sql("CALL " + CATALOG + ".system.rewrite_data_files(table => 'db.pair_copy',"
            + " options => map('min-input-files', '2', 'delete-file-threshold', '1'))");
    assertThat(sparkResult.get(0).getInt(0)).as("files Spark rewrote").isPositive();

    String ours = resurfacer(
        "compact",
        "db.pair",
        "--min-input-files",
        "2",
        "--delete-file-threshold",
        "1",
        "--output",
        "json",
        "--yes");
    long oursRewritten = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(ours)
        .get("rewritten_files")
        .asLong();
    assertThat(oursRewritten).isEqualTo(sparkResult.get(0).getInt(0));

    assertThat(sparkRows("db.pair")).isEqualTo(before);
    assertThat(sparkRows("db.pair_copy")).isEqualTo(before);
    Table copy = catalog.loadTable(TableIdentifier.of("db", "pair_copy"));
    original.refresh();
    assertThat(Rows.sortedStrings(original)).isEqualTo(Rows.sortedStrings(copy));
  }

  /** Registers a second catalog entry on the same metadata: Spark's procedures act on it, ours on the original. */
  static Table registerCopy(String name, String copy) {
    Table original = catalog.loadTable(TableIdentifier.parse(name));
    String metadata = ((HasTableOperations) original).operations().current().metadataFileLocation();
    sql("CALL " + CATALOG + ".system.register_table(table => '" + copy + "', metadata_file => '"
        + metadata + "')");
    return catalog.loadTable(TableIdentifier.parse(copy));
  }

  @Test
  void sparksV2PositionDeletesUpgradedAndTurnedIntoDeletionVectorsReadIdentically()
      throws IOException {
    writeMessy("db.conv", 2);
    // Spark writes no equality deletes, and Iceberg's writers in this JVM are the Spark runtime's
    // shaded
    // ones: equality-delete conversion is proven against Iceberg's reader in
    // EqualityDeleteConversionTest
    Table table = catalog.loadTable(TableIdentifier.of("db", "conv"));
    List<String> sparkBefore = sparkRows("db.conv");
    List<String> oursBefore = Rows.sortedStrings(table);
    assertThat(oursBefore).hasSize(sparkBefore.size());
    assertThat(deleteFiles(table, FileContent.POSITION_DELETES)).isPositive();

    // Spark's own position-delete rewrite on a copy holds the same rows
    registerCopy("db.conv", "db.conv_copy");
    sql(
        "CALL " + CATALOG
            + ".system.rewrite_position_delete_files(table => 'db.conv_copy', options => map('rewrite-all', 'true'))");
    assertThat(sparkRows("db.conv_copy")).isEqualTo(sparkBefore);

    resurfacer("upgrade", "db.conv", "--format-version", "3", "--yes");
    resurfacer("convert-equality-deletes", "db.conv", "--yes");
    resurfacer("rewrite-position-deletes", "db.conv", "--yes");
    table.refresh();
    assertThat(((HasTableOperations) table).operations().current().formatVersion())
        .isEqualTo(3);
    assertThat(deleteFiles(table, FileContent.EQUALITY_DELETES)).isZero();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        assertThat(task.deletes())
            .allSatisfy(
                d -> assertThat(d.format()).isEqualTo(org.apache.iceberg.FileFormat.PUFFIN));
      }
    }
    assertThat(sparkRows("db.conv")).isEqualTo(sparkBefore);
    assertThat(Rows.sortedStrings(table)).isEqualTo(oursBefore);
  }

  /**
   * {@code maintain} with every Iceberg operation enabled on a table Spark wrote (old days to condense,
   * today's small files, DELETE and UPDATE as merge-on-read), upgraded to v3 by us and maintained at
   * once: one report in the documented order, nothing failed, Spark reads the rows it read before.
   */
  @Test
  void maintainWithEveryOperationOnASparkWrittenTableIsOneReport() throws IOException {
    String t = CATALOG + ".db.every";
    sql(
        "CREATE TABLE " + t
            + " (id BIGINT, day DATE, note STRING) USING iceberg PARTITIONED BY (days(day))"
            + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')");
    for (int d = 0; d < 3; d++) {
      for (int f = 0; f < 2; f++) {
        long from = d * 100L + f * 10;
        sql("INSERT INTO " + t + " SELECT id, DATE '2020-01-0" + (d + 1)
            + "', concat('n-', id) FROM range(" + from + ", " + (from + 10) + ")");
      }
    }
    for (int f = 0; f < 2; f++) {
      sql("INSERT INTO " + t + " SELECT id, current_date(), concat('n-', id) FROM range("
          + (1_000 + f * 10) + ", " + (1_010 + f * 10) + ")");
    }
    sql("DELETE FROM " + t + " WHERE id % 7 = 0");
    sql("UPDATE " + t + " SET note = 'updated' WHERE id % 5 = 0");
    List<String> sparkBefore = sparkRows("db.every");
    Path policy = dir.resolve("every.yml");
    Files.writeString(policy, dev.resurfacer.iceberg.testing.EveryOperation.POLICY);

    resurfacer("upgrade", "db.every", "--format-version", "3", "--yes");
    String out = resurfacer(
        "maintain",
        "--config",
        policy.toString(),
        "--tables",
        "db.every",
        "--quiet",
        "--output",
        "json",
        "--yes");

    com.fasterxml.jackson.databind.JsonNode report =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out);
    assertThat(report.get("tables")).hasSize(1);
    com.fasterxml.jackson.databind.JsonNode table = report.get("tables").get(0);
    List<String> operations = new java.util.ArrayList<>();
    table.get("operations").forEach(o -> {
      operations.add(o.get("operation").asText());
      assertThat(o.get("outcome").asText()).as(o.toString()).isIn("done", "nothing_to_do");
    });
    assertThat(operations)
        .containsExactlyElementsOf(dev.resurfacer.iceberg.testing.EveryOperation.DESIGN_ORDER);
    Table every = catalog.loadTable(TableIdentifier.of("db", "every"));
    assertThat(every.snapshots()).hasSize(1);
    // Spark's v2 position deletes are applied by compaction or are deletion vectors now
    try (CloseableIterable<FileScanTask> tasks = every.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        assertThat(task.deletes())
            .allSatisfy(
                d -> assertThat(d.format()).isEqualTo(org.apache.iceberg.FileFormat.PUFFIN));
      }
    }
    assertThat(sparkRows("db.every")).isEqualTo(sparkBefore);
    // the rows written before the upgrade have their v3 row ids now, one each
    List<Row> ids = sql("SELECT count(_row_id), count(DISTINCT _row_id), count(*) FROM " + t);
    assertThat(ids.get(0).getLong(0)).isEqualTo(sparkBefore.size());
    assertThat(ids.get(0).getLong(1)).isEqualTo(sparkBefore.size());
  }

  /**
   * A table Spark creates as {@code db.`table:with.special:chars`}, with a column named
   * {@code letter/abc}, a binary column, deletes, a tag and a branch: addressed by both quotings,
   * maintained with every operation and a policy under its quoted name (a sort by {@code letter/abc});
   * Spark reads the same rows at main, the tag and the branch.
   */
  @Test
  void aSparkTableNamedWithDotsAndColonsIsMaintainedUnderItsQuotedName() throws IOException {
    String name = "db.`table:with.special:chars`";
    String t = CATALOG + "." + name;
    sql(
        "CREATE TABLE " + t
            + " (id BIGINT, `letter/abc` STRING, b BINARY, ts TIMESTAMP) USING iceberg PARTITIONED BY (bucket(2, id))"
            + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')");
    for (int f = 0; f < 4; f++) {
      sql("INSERT INTO " + t
          + " SELECT id, concat(char(97 + id % 26), '/', id), unhex(hex(id * 31)), TIMESTAMP '2020-01-01 00:00:00'"
          + " + make_interval(0, 0, 0, 0, cast(id % 48 as int)) FROM range(" + (f * 25) + ", "
          + (f * 25 + 25) + ")");
      if (f == 1) {
        sql("ALTER TABLE " + t + " CREATE TAG t1");
      }
    }
    sql("DELETE FROM " + t + " WHERE id % 7 = 0");
    sql("ALTER TABLE " + t + " CREATE BRANCH audit");
    sql("INSERT INTO " + t
        + ".branch_audit SELECT 1000, 'z/1000', NULL, TIMESTAMP '2020-02-01 00:00:00'");
    java.util.Map<String, List<String>> before = new java.util.LinkedHashMap<>();
    before.put("main", sparkRowsAt(t, null));
    for (String ref : List.of("t1", "audit")) {
      before.put(ref, sparkRowsAt(t, ref));
    }
    Path policy = dir.resolve("special.yml");
    Files.writeString(policy, dev.resurfacer.iceberg.testing.EveryOperation.POLICY + """
        tables:
          "db.`table:with.special:chars`":
            compact: {strategy: sort, sort-by: "`letter/abc` DESC", rewrite-all: true}
        """);

    assertThat(resurfacer("describe", name)).contains("table:with.special:chars");
    assertThat(resurfacer(
            "plan",
            "\"db\".\"table:with.special:chars\"",
            "--strategy",
            "sort",
            "--sort-by",
            "letter/abc"))
        .contains("sort");
    String out = resurfacer(
        "maintain",
        "--config",
        policy.toString(),
        "--tables",
        name,
        "--quiet",
        "--output",
        "json",
        "--yes");

    com.fasterxml.jackson.databind.JsonNode report =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out);
    assertThat(report.get("tables")).hasSize(1);
    com.fasterxml.jackson.databind.JsonNode table = report.get("tables").get(0);
    assertThat(table.get("table").asText()).isEqualTo(name);
    assertThat(table.get("outcome").asText()).as(table.toString()).isEqualTo("done");
    table.get("operations").forEach(o -> {
      assertThat(o.get("outcome").asText()).as(o.toString()).isIn("done", "nothing_to_do");
      assertThat(o.get("message").asText()).as(o.toString()).isNotBlank();
    });
    assertThat(out).doesNotContain("\"outcome\":\"previewed\"");
    assertThat(table.get("operations").findValuesAsText("operation"))
        .containsExactlyElementsOf(dev.resurfacer.iceberg.testing.EveryOperation.DESIGN_ORDER);
    assertThat(sparkRowsAt(t, null)).isEqualTo(before.get("main"));
    for (String ref : List.of("t1", "audit")) {
      assertThat(sparkRowsAt(t, ref)).as(ref).isEqualTo(before.get(ref));
    }
  }

  /** The special table's rows at {@code ref} (null: main), binary as hex: a byte[] has no value-based toString. */
  private static List<String> sparkRowsAt(String table, String ref) {
    return spark
        .sql("SELECT id, `letter/abc`, hex(b), ts FROM " + table
            + (ref == null ? "" : " VERSION AS OF '" + ref + "'"))
        .collectAsList()
        .stream()
        .map(Row::toString)
        .sorted()
        .toList();
  }

  @Test
  void ourNdvSketchesMatchSparksComputeTableStatsAndSparkPlansWithThem() throws IOException {
    writeMessy("db.stats", 2);
    Table copy = registerCopy("db.stats", "db.stats_copy");
    sql("CALL " + CATALOG + ".system.compute_table_stats(table => 'db.stats_copy')");
    copy.refresh();
    resurfacer("compute-stats", "db.stats", "--yes");
    Table ours = catalog.loadTable(TableIdentifier.of("db", "stats"));
    java.util.Map<Integer, Long> sparkNdv = ndvByField(copy);
    java.util.Map<Integer, Long> ourNdv = ndvByField(ours);
    assertThat(ourNdv.keySet()).containsExactlyInAnyOrderElementsOf(sparkNdv.keySet());
    Row exact =
        sql("SELECT count(DISTINCT id), count(DISTINCT cat), count(DISTINCT amount), count(DISTINCT note) FROM "
                + CATALOG + ".db.stats")
            .get(0);
    String[] columns = {"id", "cat", "amount", "note"};
    for (int i = 0; i < columns.length; i++) {
      int field = ours.schema().findField(columns[i]).fieldId();
      // same sketch family, same value serialization, same live rows: Spark's estimate and ours
      // agree
      assertThat(ourNdv.get(field)).as(columns[i]).isEqualTo(sparkNdv.get(field));
      assertThat((double) ourNdv.get(field))
          .as(columns[i])
          .isCloseTo(exact.getLong(i), org.assertj.core.data.Percentage.withPercentage(5));
    }
    // Spark's planner reads our file: with CBO on, Iceberg's scan reports the distinct counts it
    // holds
    spark.conf().set("spark.sql.cbo.enabled", "true");
    try {
      var stats =
          spark.table(CATALOG + ".db.stats").queryExecution().optimizedPlan().stats();
      java.util.Map<String, Long> planned = new java.util.HashMap<>();
      var it = stats.attributeStats().iterator();
      while (it.hasNext()) {
        var entry = it.next();
        if (entry._2().distinctCount().isDefined()) {
          planned.put(entry._1().name(), entry._2().distinctCount().get().longValue());
        }
      }
      assertThat(planned)
          .containsEntry("id", ourNdv.get(ours.schema().findField("id").fieldId()));
    } finally {
      spark.conf().set("spark.sql.cbo.enabled", "false");
    }
  }

  static java.util.Map<Integer, Long> ndvByField(Table table) {
    java.util.Map<Integer, Long> out = new java.util.HashMap<>();
    assertThat(table.statisticsFiles()).singleElement().satisfies(f -> {
      assertThat(f.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
      f.blobMetadata().forEach(b -> {
        assertThat(b.type()).isEqualTo("apache-datasketches-theta-v1");
        out.put(b.fields().get(0), Long.parseLong(b.properties().get("ndv")));
      });
    });
    return out;
  }
}
