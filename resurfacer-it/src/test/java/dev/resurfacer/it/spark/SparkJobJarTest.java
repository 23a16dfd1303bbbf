package dev.resurfacer.it.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.it.child.ChildCli;
import dev.resurfacer.spark.ConnectSql;
import dev.resurfacer.spark.testing.SparkCluster;
import dev.resurfacer.spark.testing.SparkTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The job jar ({@code resurfacer-spark-job/target/resurfacer-spark.jar}) through Spark's real
 * spark-submit against a standalone cluster on loopback, side by side with the runnable jar over Spark
 * Connect to the same cluster: the same policy over two tables Spark wrote identically gives the same
 * report (outcomes, messages, metrics, refusals), previewed and committed, and the same rows read back.
 * The job's driver has the Iceberg Spark runtime on its classpath, as a real cluster does, next to our
 * own Iceberg inside the job jar. A Delta table delta-spark wrote is compacted, z-ordered and vacuumed by
 * the job through delta-spark (on the driver's classpath with its extension, as the Connect server's).
 */
class SparkJobJarTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MAIN = "dev.resurfacer.spark.job.JobMain";
  static final Path DIR = tempDir();
  // the Connect server keeps 2 cores for its whole life; the job gets the other 2
  static final SparkCluster CLUSTER = new SparkCluster()
      .worker(4, "2g")
      .jdbcCatalog("lake", SqliteCatalogs.uri(DIR), SqliteCatalogs.warehouse(DIR));
  /** Session conf values that are secrets: one by reference under a name Spark would not redact, one literal under a credential's name. */
  static final String AUTH_SECRET = "auth-Vb7ReferencedSecret-3318";

  static final String S3_SECRET = "s3k-Hn4LiteralSecret-5120";
  static final Map<String, String> ENV = Map.of("JOB_AUTH", AUTH_SECRET);
  /** A Delta table delta-spark writes through Connect, maintained by the job. */
  static final Path DELTA = DIR.resolve("delta-events");

  static final String DELTA_RELATION = "delta.`" + DELTA + "`";
  static JdbcCatalog catalog;
  static ConnectSql sql;
  static Path yml;

  static Path tempDir() {
    try {
      return Files.createTempDirectory("spark-job");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path jobJar() {
    Path jar = Path.of(System.getProperty(
        "resurfacer-spark.jar", "../resurfacer-spark-job/target/resurfacer-spark.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "job jar not built: " + jar.toAbsolutePath() + " (run through mvn verify)");
    }
    return jar.toAbsolutePath();
  }

  @BeforeAll
  static void start() throws Exception {
    CLUSTER.start();
    catalog = SqliteCatalogs.create("lake", DIR);
    sql = ConnectSql.open(CLUSTER.remote(), Map.of());
    sql.rows("CREATE NAMESPACE IF NOT EXISTS lake.db");
    for (String via : List.of("c", "j")) {
      SparkTables.writeMessy(sql, "lake.db.events_" + via);
      sql.rows("CREATE TABLE lake.db.refused_" + via
          + " (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
      sql.rows("INSERT INTO lake.db.refused_" + via + " VALUES (1, 'a'), (2, 'b'), (3, 'a')");
    }
    writeDelta();
    yml = DIR.resolve("resurfacer.yml");
    Files.writeString(yml, """
        catalogs:
          deltas:
            type: delta
            tables:
              raw.events_j: %s
          lake:
            type: jdbc
            uri: %s
            warehouse: %s
        engines:
          spark:
            remote: %s
            conf:
              spark.resurfacer.test.auth: ${env:JOB_AUTH}
              spark.hadoop.fs.s3a.secret.key: %s
              # delta-spark reads a table's log state in this many tasks (its default: 50)
              spark.databricks.delta.snapshotPartitions: "2"
        defaults:
          engine: spark
          compact: {min-input-files: 2}
          remove-dangling-deletes: {enabled: false}
          expire: {older-than: 0s, retain-last: 1}
          remove-orphans: {older-than: 1d}
        tables:
          "db.refused_*":
            remove-dangling-deletes: {enabled: true}
        """.formatted(
            DELTA,
            SqliteCatalogs.uri(DIR),
            SqliteCatalogs.warehouse(DIR),
            CLUSTER.remote(),
            S3_SECRET));
  }

  /**
   * Partitioned by {@code cat}, four small inserts (a few files per partition each), a delete (tombstones)
   * and an update to {@code -0.0}; decimals, dates, nulls. Tombstones expire after an hour, as our vacuum's retention.
   */
  static void writeDelta() {
    sql.rows("CREATE TABLE " + DELTA_RELATION
        + " (id BIGINT, cat STRING, amount DECIMAL(12,2), score DOUBLE, day DATE, note STRING)"
        + " USING delta PARTITIONED BY (cat) TBLPROPERTIES ('delta.deletedFileRetentionDuration'='interval 1 hours',"
        // no checkpoint at version 10 (VACUUM END): the cluster's delta-spark 4.1.0 then fails to
        // read it on Spark 4.1.2
        // (NoSuchMethodError ParquetToSparkSchemaConverter.<init>), a fixture version mismatch, not
        // the job's
        + " 'delta.checkpointInterval'='100')");
    for (int batch = 0; batch < 4; batch++) {
      sql.rows("INSERT INTO " + DELTA_RELATION
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END,"
          + " CAST(id * 1.25 AS DECIMAL(12,2)), CASE WHEN id % 9 = 0 THEN NULL ELSE id / 7.0 END,"
          + " date_add(DATE '2026-01-01', CAST(id % 30 AS INT)), CASE WHEN id % 4 = 0 THEN NULL ELSE concat('n-', id) END"
          + " FROM range(" + batch * 30 + ", " + (batch * 30 + 30) + ", 1, 2)");
    }
    sql.rows("DELETE FROM " + DELTA_RELATION + " WHERE id % 7 = 0");
    sql.rows("UPDATE " + DELTA_RELATION + " SET score = -0.0 WHERE id % 5 = 0");
  }

  @AfterAll
  static void stop() {
    if (sql != null) {
      sql.close();
    }
    CLUSTER.close();
  }

  static Table table(String name) {
    return catalog.loadTable(TableIdentifier.of("db", name));
  }

  static Path orphanIn(String name) throws IOException {
    Path orphan = Path.of(
        table(name).location().replaceFirst("^file:", ""), "data", "cat=a", "left-behind.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    return orphan;
  }

  /** {@code maintain} through the runnable jar over Spark Connect, on the tables ending in {@code _c}. */
  static JsonNode overConnect(Path dir, String... extra) throws IOException {
    ChildCli.Result r = new ChildCli(dir, ENV).run(args("*_c", extra));
    assertThat(r.exitCode()).as("%s%n%s", r.out(), r.err()).isEqualTo(3);
    assertNoSecret(r.out() + r.err());
    return report(r.out());
  }

  /** {@code maintain} through spark-submit and the job jar, on the tables ending in {@code _j}. */
  static SparkCluster.Submitted asJob(Path dir, String... extra) {
    SparkCluster.Submitted r = CLUSTER.submit(dir, ENV, jobJar(), MAIN, args("*_j", extra));
    assertThat(r.exitCode()).as("%s%n%s", r.out(), r.err()).isEqualTo(3);
    assertNoSecret(r.out() + r.err());
    return r;
  }

  static void assertNoSecret(String text) {
    assertThat(text).doesNotContain(AUTH_SECRET).doesNotContain(S3_SECRET);
  }

  /** The JSON report: stdout from its opening brace (a driver may log to stdout before it). */
  static JsonNode report(String out) throws IOException {
    int start = out.startsWith("{") ? 0 : out.indexOf("\n{") + 1;
    return JSON.readTree(out.substring(start));
  }

  static String[] args(String tables, String... extra) {
    List<String> all = new java.util.ArrayList<>(List.of(
        "maintain", "--config", yml.toString(), "--tables", "db." + tables, "--output", "json"));
    all.addAll(List.of(extra));
    return all.toArray(String[]::new);
  }

  /**
   * The report with what must differ taken out: durations and start times, the tables' suffixes,
   * where the statements ran ({@code sc://...} or the job's master), snapshot ids, and byte sizes
   * (metadata and delete files hold random snapshot ids and file names, so their sizes may differ by a
   * few bytes between two tables with the same rows; compaction's data bytes are compared apart).
   */
  static JsonNode comparable(JsonNode report, String suffix) {
    JsonNode copy = report.deepCopy();
    normalize(copy, suffix);
    return copy;
  }

  private static void normalize(JsonNode node, String suffix) {
    if (node instanceof ObjectNode o) {
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String key = e.getKey().toLowerCase(java.util.Locale.ROOT);
        if (key.contains("duration") || key.contains("started") || key.contains("bytes")) {
          it.remove();
        } else if (e.getValue().isTextual()) {
          e.setValue(new TextNode(e.getValue()
              .asText()
              .replace(suffix, "_T")
              .replaceAll(
                  "sc://127\\.0\\.0\\.1:\\d+|job on spark://127\\.0\\.0\\.1:\\d+", "CLUSTER")
              .replaceAll("(snapshot|at) -?\\d{6,}", "$1 ID")
              .replaceAll("\\(\\d+(\\.\\d+)? (B|KB|MB|GB)\\)", "(SIZE)")));
        } else {
          normalize(e.getValue(), suffix);
        }
      }
    } else if (node.isArray()) {
      node.forEach(n -> normalize(n, suffix));
    }
  }

  @Test
  void theJobJarRunsThePolicyAsSparkConnectDoesWithTheSameReportAndTheSameRows() throws Exception {
    List<String> rows = Content.of(table("events_c"));
    assertThat(rows).hasSize(171).isEqualTo(Content.of(table("events_j")));
    long refusedSnapshot = table("refused_j").currentSnapshot().snapshotId();
    Path connectOrphan = orphanIn("events_c");
    Path jobOrphan = orphanIn("events_j");

    JsonNode connectPreview = overConnect(DIR.resolve("connect-preview"), "--quiet");
    JsonNode jobPreview = report(asJob(DIR.resolve("job-preview"), "--quiet").out());
    assertThat(comparable(jobPreview, "_j")).isEqualTo(comparable(connectPreview, "_c"));
    assertThat(jobPreview.toString()).contains("\"previewed\"");
    assertThat(jobOrphan).exists();
    assertThat(table("events_j").currentSnapshot().operation()).isNotEqualTo("replace");

    JsonNode connectRun = overConnect(DIR.resolve("connect-run"), "--quiet", "--yes");
    SparkCluster.Submitted job = asJob(DIR.resolve("job-run"), "--yes");
    JsonNode jobRun = report(job.out());
    assertThat(comparable(jobRun, "_j")).isEqualTo(comparable(connectRun, "_c"));
    // the cluster's progress reaches ours: each statement's Spark jobs, from the driver's status
    // tracker
    assertThat(job.err())
        .containsPattern(
            "engine=spark job on spark://127\\.0\\.0\\.1:\\d+: job \\d+ succeeded \\(\\d+ stage\\(s\\), (\\d+ skipped, )?(\\d+)/\\2 task\\(s\\) done\\)")
        // a finished job's stages that never ran (their shuffle output existed) are counted apart,
        // never as work undone
        .doesNotContainPattern(
            "succeeded \\(\\d+ stage\\(s\\), (\\d+ skipped, )?(\\d+)/(?!\\2\\D)\\d+ task");

    JsonNode events = tableReport(jobRun, "db.events_j");
    assertThat(events.get("outcome").asText()).as(events.toString()).isEqualTo("done");
    JsonNode compact = operation(events, "compact");
    JsonNode compactPlan = operation(tableReport(jobPreview, "db.events_j"), "compact");
    assertThat(compact.at("/metrics/rewritten_files").asLong())
        .isPositive()
        .isEqualTo(compactPlan.at("/metrics/files_to_rewrite").asLong());
    // bytes against the job's own preview only: the two tables' delete files hold random file
    // names, so
    // their compressed sizes (counted in the bytes rewritten) may differ by a few bytes from the
    // Connect run's
    assertThat(compact.at("/metrics/rewritten_bytes").asLong())
        .isEqualTo(compactPlan.at("/metrics/bytes_to_rewrite").asLong());
    assertThat(compact.at("/metrics/rewritten_files").asLong())
        .isEqualTo(operation(tableReport(connectRun, "db.events_c"), "compact")
            .at("/metrics/rewritten_files")
            .asLong());
    assertThat(compact.get("message").asText()).contains("verified: 171 rows, checksum ");
    assertThat(operation(events, "expire").at("/metrics/expired_snapshots").asLong())
        .isPositive();
    assertThat(operation(events, "remove-orphans").at("/metrics/deleted_files").asLong())
        .isEqualTo(1);
    assertThat(jobOrphan).doesNotExist();
    assertThat(connectOrphan).doesNotExist();
    assertThat(table("events_j").snapshots()).hasSize(1);
    assertThat(Content.of(table("events_j"))).isEqualTo(rows);
    assertThat(Content.of(table("events_c"))).isEqualTo(rows);
    assertThat(sql.rows("SELECT count(*) AS n FROM lake.db.events_j").get(0).get("n"))
        .isEqualTo(171L);

    JsonNode refused = tableReport(jobRun, "db.refused_j");
    assertThat(refused.get("outcome").asText()).isEqualTo("refused");
    assertThat(operation(refused, "remove-dangling-deletes").get("message").asText())
        .startsWith("engine spark does not run remove-dangling-deletes on iceberg tables");
    assertThat(table("refused_j").currentSnapshot().snapshotId()).isEqualTo(refusedSnapshot);
  }

  static JsonNode tableReport(JsonNode report, String table) {
    for (JsonNode t : report.get("tables")) {
      if (t.get("table").asText().equals(table)) {
        return t;
      }
    }
    throw new AssertionError("no " + table + " in " + report);
  }

  static JsonNode operation(JsonNode table, String name) {
    for (JsonNode o : table.get("operations")) {
      if (o.get("operation").asText().equals(name)) {
        return o;
      }
    }
    throw new AssertionError("no " + name + " in " + table);
  }

  @Test
  void anUnreachableMasterIsOneLineExitTwoNothingChangedAndNoSecretShown() throws Exception {
    long snapshot = table("refused_j").currentSnapshot().snapshotId();
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    SparkCluster.Submitted r = CLUSTER.submit(
        DIR.resolve("job-unreachable"),
        ENV,
        Map.of("spark.master", "spark://127.0.0.1:" + closed),
        jobJar(),
        MAIN,
        "maintain",
        "--config",
        yml.toString(),
        "--tables",
        "db.refused_j",
        "--yes");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err().lines().filter(l -> l.startsWith("error: ")).toList())
        .containsExactly("error: cannot reach the Spark master at spark://127.0.0.1:" + closed
            + ": Connection refused");
    assertNoSecret(r.out() + r.err());
    assertThat(r.err()).doesNotContain("SparkContext: Running Spark");
    assertThat(table("refused_j").currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void badInputInTheJobIsOneLineExitTwoAndNoApplicationStarts() throws Exception {
    Path bad = DIR.resolve("bad.yml");
    Files.writeString(
        bad,
        Files.readString(yml)
            .replace("engines:\n  spark:\n", "engines:\n  spark:\n    bogus: 1\n"));
    SparkCluster.Submitted r = CLUSTER.submit(
        DIR.resolve("job-bad"),
        ENV,
        jobJar(),
        MAIN,
        "maintain",
        "--config",
        bad.toString(),
        "--tables",
        "db.refused_j",
        "--yes");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    List<String> errors = r.err().lines().filter(l -> l.startsWith("error: ")).toList();
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).startsWith("error: unknown key 'engines.spark.bogus'");
    // the session is started on first use: a run that stops at its configuration never registers an
    // application
    assertThat(r.err())
        .doesNotContain("Connected to Spark cluster")
        .doesNotContain("SparkContext: Running Spark");
  }

  /** The rows delta-spark reads, each value tagged with its Java type (doubles by their bits, decimals with their scale), sorted, then Spark's count and xxhash64 checksum. */
  static List<String> deltaRows() {
    List<String> out = new java.util.ArrayList<>();
    for (Map<String, Object> row :
        sql.rows("SELECT id, cat, amount, score, day, note FROM " + DELTA_RELATION)) {
      List<String> values = new java.util.ArrayList<>();
      for (Object v : row.values()) {
        Object plain = v instanceof java.sql.Date d ? d.toLocalDate() : v;
        values.add(
            plain == null
                ? "null"
                : plain.getClass().getSimpleName() + ":"
                    + (plain instanceof Double d
                        ? Long.toHexString(Double.doubleToRawLongBits(d))
                        : plain instanceof java.math.BigDecimal b ? b.toPlainString() : plain));
      }
      out.add(String.join("|", values));
    }
    out.sort(null);
    Map<String, Object> sums = sql.rows(
            "SELECT count(*) AS n, sum(CAST(xxhash64(id, cat, amount, score, day, note) AS DECIMAL(38,0))) AS h FROM "
                + DELTA_RELATION)
        .get(0);
    out.add("count=" + sums.get("n") + " checksum=" + sums.get("h"));
    return out;
  }

  static java.util.Set<Path> deltaFiles() throws IOException {
    try (java.util.stream.Stream<Path> walk = Files.walk(DELTA)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> !p.toString().contains("_delta_log"))
          .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }
  }

  static Map<String, Object> lastHistory() {
    return sql.rows("DESCRIBE HISTORY " + DELTA_RELATION + " LIMIT 1").get(0);
  }

  /** One verb through spark-submit and the job jar on the Delta table: exit 0, its JSON step, the driver's progress lines on stderr. */
  static SparkCluster.Submitted deltaJob(String run, String... verb) {
    List<String> all = new java.util.ArrayList<>(List.of(verb));
    all.addAll(List.of(
        "raw.events_j",
        "--config",
        yml.toString(),
        "--engine",
        "spark",
        "--output",
        "json",
        "--yes"));
    SparkCluster.Submitted r =
        CLUSTER.submit(DIR.resolve(run), ENV, jobJar(), MAIN, all.toArray(String[]::new));
    assertThat(r.exitCode()).as("%s%n%s", r.out(), r.err()).isZero();
    assertNoSecret(r.out() + r.err());
    return r;
  }

  /**
   * Nightly (-Plong): the same delta-spark commands run through Spark Connect in the default build
   * (SparkDeltaCliTest), and the job jar's route is proven there by the Iceberg policy test above.
   */
  @Test
  @Tag("nightly")
  void theJobJarCompactsZOrdersAndVacuumsADeltaTableThroughDeltaSpark() throws Exception {
    List<String> before = deltaRows();
    assertThat(before).hasSize(120 - 18 + 1).last().asString().startsWith("count=102 checksum=");
    Path stray = DELTA.resolve("cat=a/stray-leftover.parquet");
    Files.write(stray, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(stray, FileTime.from(Instant.now().minus(Duration.ofDays(2))));

    SparkCluster.Submitted compact = deltaJob("delta-compact", "compact");
    JsonNode done = report(compact.out());
    assertThat(done.get("outcome").asText()).as(done.toString()).isEqualTo("done");
    assertThat(done.get("message").asText())
        .startsWith("delta-spark's OPTIMIZE rewrote ")
        .contains("verified: 102 rows, checksum ")
        .contains("the files it removed are the preview's");
    assertThat(done.at("/metrics/rewritten_files").asLong())
        .isGreaterThan(2)
        .isEqualTo(done.at("/metrics/files_to_rewrite").asLong());
    assertThat(done.at("/metrics/preview_mismatch").asLong()).isZero();
    assertThat(compact.err())
        .containsPattern("operation=compact engine=spark OPTIMIZE delta\\.`")
        .containsPattern("engine=spark job on spark://127\\.0\\.0\\.1:\\d+: job \\d+ succeeded");
    assertThat(lastHistory().get("operation")).isEqualTo("OPTIMIZE");
    assertThat(deltaRows()).isEqualTo(before);

    JsonNode zdone =
        report(deltaJob("delta-zorder", "compact", "--strategy", "zorder", "--columns", "id,day")
            .out());
    assertThat(zdone.get("outcome").asText()).as(zdone.toString()).isEqualTo("done");
    assertThat(zdone.get("message").asText())
        .startsWith("delta-spark's OPTIMIZE ZORDER BY rewrote 2 file(s)");
    Map<String, Object> z = lastHistory();
    assertThat(z.get("operation")).isEqualTo("OPTIMIZE");
    assertThat(String.valueOf(((Map<?, ?>) z.get("operationParameters")).get("zOrderBy")))
        .contains("id")
        .contains("day");
    assertThat(deltaRows()).isEqualTo(before);

    java.util.Set<Path> onDisk = deltaFiles();
    JsonNode vacuum =
        report(deltaJob("delta-vacuum", "vacuum", "--retention", "1h").out());
    assertThat(vacuum.get("outcome").asText()).as(vacuum.toString()).isEqualTo("done");
    assertThat(vacuum.get("message").asText()).startsWith("delta-spark's VACUUM deleted 1 file(s)");
    assertThat(vacuum.at("/metrics/files_to_delete").asLong()).isEqualTo(1);
    assertThat(vacuum.at("/metrics/spark_candidates").asLong()).isEqualTo(1);
    assertThat(vacuum.at("/metrics/deleted_files").asLong()).isEqualTo(1);
    java.util.Set<Path> expected = new java.util.TreeSet<>(onDisk);
    expected.remove(stray);
    assertThat(deltaFiles()).isEqualTo(expected);
    assertThat(deltaRows()).isEqualTo(before);
  }
}
