package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.spark.ConnectSql;
import dev.resurfacer.spark.testing.SparkCluster;
import dev.resurfacer.spark.testing.SparkTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --engine spark} through the CLI against a real standalone Spark cluster with Spark Connect on
 * loopback (one cluster for the class). Spark writes the tables; every supported operation previews
 * locally and runs on the cluster; Spark and Iceberg's own reader read back identical rows,
 * type-tagged; the preview equals what Spark did; our fences hold on Spark's candidates.
 */
class SparkEngineCliTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Path DIR = tempDir();
  /** This test JVM's one Spark cluster, shared with {@link SparkDeltaCliTest}: started by the first class that needs it, closed at JVM exit. */
  static final SparkCluster CLUSTER = new SparkCluster()
      .jdbcCatalog("lake", SqliteCatalogs.uri(DIR), SqliteCatalogs.warehouse(DIR))
      .closedAtExit();

  static JdbcCatalog catalog;
  static ConnectSql sql;

  static Path tempDir() {
    try {
      return Files.createTempDirectory("spark-cli");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    CLUSTER.start();
    catalog = SqliteCatalogs.create("lake", DIR);
    sql = ConnectSql.open(CLUSTER.remote(), Map.of());
    sql.rows("CREATE NAMESPACE IF NOT EXISTS lake.db");
    Files.writeString(
        DIR.resolve("resurfacer.yml"),
        MaintainCliTest.catalogYml(DIR) + """
        engines:
          spark:
            remote: %s
        """.formatted(CLUSTER.remote()));
  }

  @AfterAll
  static void stop() {
    if (sql != null) {
      sql.close();
    }
  }

  static CliRun cli(String... args) {
    return cliIn(DIR, args);
  }

  /** One verb through the CLI on the engine {@code spark}, with the {@code resurfacer.yml} in {@code dir}. */
  static CliRun cliIn(Path dir, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--config", dir.resolve("resurfacer.yml").toString(), "--engine", "spark"));
    return CliRun.run(dir, all.toArray(String[]::new));
  }

  /** One verb's JSON result; the run must succeed. */
  static JsonNode json(String... args) throws Exception {
    return jsonIn(DIR, args);
  }

  static JsonNode jsonIn(Path dir, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--output", "json"));
    CliRun r = cliIn(dir, all.toArray(String[]::new));
    assertThat(r.exitCode())
        .as("%s%n%s%n%s", String.join(" ", args), r.out(), r.err())
        .isZero();
    return JSON.readTree(r.out());
  }

  static void writeMessyTable(String name) {
    SparkTables.writeMessy(sql, "lake.db." + name);
  }

  /** A small table in one Spark statement pair: enough where only the fences or the refusal are under test. */
  static void writeTable(String name) {
    sql.rows("CREATE TABLE lake.db." + name
        + " (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql.rows("INSERT INTO lake.db." + name + " VALUES (1, 'a'), (2, 'b'), (3, 'a')");
  }

  static Table table(String name) {
    return catalog.loadTable(TableIdentifier.of("db", name));
  }

  /** The rows as Spark reads them, rendered type-tagged by the table's schema exactly as {@link Content} renders ours. */
  static List<String> sparkContent(String name) {
    Schema schema = table(name).schema();
    List<GenericRecord> records = new ArrayList<>();
    for (Map<String, Object> row : sql.rows("SELECT * FROM lake.db." + name)) {
      GenericRecord r = GenericRecord.create(schema);
      for (Types.NestedField f : schema.columns()) {
        Object v = row.get(f.name());
        r.setField(f.name(), v instanceof java.sql.Date d ? d.toLocalDate() : v);
      }
      records.add(r);
    }
    return Content.of(schema, records);
  }

  static void age(Path file) throws Exception {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
  }

  @Test
  void everyOperationRunsOnSparkWithThePreviewItPlannedAndTheSameRows() throws Exception {
    writeMessyTable("events");
    List<String> before = Content.of(table("events"));
    assertThat(before).hasSize(200 - 29);
    assertThat(sparkContent("events")).isEqualTo(before);
    int snapshots = 0;
    for (var s : table("events").snapshots()) {
      snapshots++;
    }

    JsonNode plan = json("compact", "db.events", "--min-input-files", "2");
    assertThat(plan.get("outcome").asText()).isEqualTo("previewed");
    assertThat(table("events").currentSnapshot().operation()).isNotEqualTo("replace");
    JsonNode compacted = json("compact", "db.events", "--min-input-files", "2", "--yes");
    assertThat(compacted.get("outcome").asText()).as(compacted.toString()).isEqualTo("done");
    assertThat(compacted.at("/metrics/rewritten_files").asLong())
        .isPositive()
        .isEqualTo(plan.at("/metrics/files_to_rewrite").asLong());
    assertThat(compacted.at("/metrics/rewritten_bytes").asLong())
        .isEqualTo(plan.at("/metrics/bytes_to_rewrite").asLong());
    assertThat(compacted.get("message").asText())
        .contains("verified: " + before.size() + " rows, checksum ");
    assertThat(table("events").currentSnapshot().operation()).isEqualTo("replace");
    assertThat(Content.of(table("events"))).isEqualTo(before);

    JsonNode sorted = json(
        "compact",
        "db.events",
        "--strategy",
        "sort",
        "--sort-by",
        "id DESC",
        "--rewrite-all",
        "--yes");
    assertThat(sorted.get("outcome").asText()).as(sorted.toString()).isEqualTo("done");
    JsonNode zordered = json(
        "compact",
        "db.events",
        "--strategy",
        "zorder",
        "--columns",
        "id,day",
        "--rewrite-all",
        "--yes");
    assertThat(zordered.get("outcome").asText()).as(zordered.toString()).isEqualTo("done");

    JsonNode manifests = json("rewrite-manifests", "db.events", "--yes");
    assertThat(manifests.get("outcome").asText())
        .as(manifests.toString())
        .isIn("done", "nothing_to_do");

    JsonNode expirePlan = json("expire", "db.events", "--older-than", "0s", "--retain-last", "1");
    assertThat(expirePlan.at("/metrics/expired_snapshots").asLong())
        .isGreaterThanOrEqualTo(snapshots);
    JsonNode expired =
        json("expire", "db.events", "--older-than", "0s", "--retain-last", "1", "--yes");
    assertThat(expired.get("outcome").asText()).as(expired.toString()).isEqualTo("done");
    assertThat(expired.at("/metrics/expired_snapshots").asLong())
        .isEqualTo(expirePlan.at("/metrics/expired_snapshots").asLong());
    assertThat(expired.at("/metrics/deleted_files").asLong())
        .isEqualTo(expirePlan.at("/metrics/deleted_files").asLong());
    assertThat(table("events").snapshots()).hasSize(1);

    Path orphan = Path.of(
        table("events").location().replaceFirst("^file:", ""),
        "data",
        "cat=a",
        "left-behind.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    age(orphan);
    JsonNode orphanPlan = json("remove-orphans", "db.events", "--older-than", "1d");
    assertThat(orphanPlan.at("/metrics/spark_candidates").asLong()).isEqualTo(1);
    assertThat(orphanPlan.at("/metrics/orphan_files").asLong()).isEqualTo(1);
    assertThat(orphan).exists();
    JsonNode removed = json("remove-orphans", "db.events", "--older-than", "1d", "--yes");
    assertThat(removed.at("/metrics/deleted_files").asLong()).isEqualTo(1);
    assertThat(orphan).doesNotExist();

    assertThat(Content.of(table("events"))).isEqualTo(before);
    assertThat(sparkContent("events")).isEqualTo(before);
  }

  /** Every live data file's location and the partition it is in. */
  static java.util.Map<String, String> dataFiles(String name) {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    Table t = table(name);
    try (var tasks = t.newScan().planFiles()) {
      tasks.forEach(task ->
          out.put(task.file().location(), t.spec().partitionToPath(task.file().partition())));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  @Test
  void whereAndPartitionSelectOnSparkWhatThePreviewPlanned() throws Exception {
    writeMessyTable("filtered");
    List<String> before = Content.of(table("filtered"));
    java.util.Map<String, String> filesBefore = dataFiles("filtered");

    JsonNode plan =
        json("compact", "db.filtered", "--min-input-files", "2", "--partition", "cat=a");
    assertThat(plan.get("message").asText()).as(plan.toString()).contains("where `cat` = 'a'");
    JsonNode done =
        json("compact", "db.filtered", "--min-input-files", "2", "--partition", "cat=a", "--yes");
    assertThat(done.get("outcome").asText()).as(done.toString()).isEqualTo("done");
    assertThat(done.at("/metrics/rewritten_files").asLong())
        .isPositive()
        .isEqualTo(plan.at("/metrics/files_to_rewrite").asLong());
    assertThat(done.at("/metrics/rewritten_bytes").asLong())
        .isEqualTo(plan.at("/metrics/bytes_to_rewrite").asLong());
    java.util.Map<String, String> filesAfter = dataFiles("filtered");
    // partition b is untouched: the same files, none added
    assertThat(filesAfter.entrySet().stream()
            .filter(e -> e.getValue().equals("cat=b"))
            .map(java.util.Map.Entry::getKey)
            .toList())
        .isEqualTo(filesBefore.entrySet().stream()
            .filter(e -> e.getValue().equals("cat=b"))
            .map(java.util.Map.Entry::getKey)
            .toList());
    assertThat(Content.of(table("filtered"))).isEqualTo(before);

    // ids 0..99 went into the first two inserts: their files cannot match and stay
    JsonNode wherePlan = json(
        "compact",
        "db.filtered",
        "--min-input-files",
        "2",
        "--partition",
        "cat=b",
        "--where",
        "id >= 100");
    JsonNode whereDone = json(
        "compact",
        "db.filtered",
        "--min-input-files",
        "2",
        "--partition",
        "cat=b",
        "--where",
        "id >= 100",
        "--yes");
    assertThat(whereDone.get("outcome").asText()).as(whereDone.toString()).isEqualTo("done");
    assertThat(whereDone.at("/metrics/rewritten_files").asLong())
        .isPositive()
        .isEqualTo(wherePlan.at("/metrics/files_to_rewrite").asLong())
        .isLessThan(filesAfter.values().stream().filter("cat=b"::equals).count());
    assertThat(whereDone.at("/metrics/rewritten_bytes").asLong())
        .isEqualTo(wherePlan.at("/metrics/bytes_to_rewrite").asLong());
    assertThat(Content.of(table("filtered"))).isEqualTo(before);
    assertThat(sparkContent("filtered")).isEqualTo(before);

    CliRun transform = cli("compact", "db.filtered", "--partition", "nope=1", "--yes");
    assertThat(transform.exitCode()).isEqualTo(2);
    assertThat(transform.err().strip())
        .isEqualTo("error: --partition: lake.db.filtered has no partition field nope");
  }

  @Test
  void positionDeletesAreRewrittenOnSparkAsPreviewedAndTheRowsStay() throws Exception {
    writeMessyTable("deletes");
    List<String> before = Content.of(table("deletes"));
    JsonNode plan = json("rewrite-position-deletes", "db.deletes", "--option", "min-input-files=2");
    assertThat(plan.get("outcome").asText()).as(plan.toString()).isEqualTo("previewed");
    assertThat(plan.at("/metrics/files_to_rewrite").asLong()).isPositive();

    JsonNode done =
        json("rewrite-position-deletes", "db.deletes", "--option", "min-input-files=2", "--yes");

    assertThat(done.get("outcome").asText()).as(done.toString()).isEqualTo("done");
    assertThat(done.at("/metrics/rewritten_files").asLong())
        .isEqualTo(plan.at("/metrics/files_to_rewrite").asLong());
    assertThat(done.at("/metrics/rewritten_bytes").asLong())
        .isEqualTo(plan.at("/metrics/bytes_to_rewrite").asLong());
    assertThat(done.get("message").asText())
        .contains("verified: " + before.size() + " rows, checksum ");
    // Spark writes file-scoped position deletes (one file per data file), and the rewrite keeps
    // that
    // granularity: the replace swaps exactly the files it reports, the count may stay the same
    org.apache.iceberg.Snapshot rewrite = table("deletes").currentSnapshot();
    assertThat(rewrite.operation()).isEqualTo("replace");
    assertThat(Long.parseLong(rewrite.summary().get("removed-position-delete-files")))
        .isEqualTo(done.at("/metrics/rewritten_files").asLong());
    assertThat(Long.parseLong(rewrite.summary().get("added-position-delete-files")))
        .isEqualTo(done.at("/metrics/added_files").asLong());
    assertThat(Content.of(table("deletes"))).isEqualTo(before);
    assertThat(sparkContent("deletes")).isEqualTo(before);
  }

  @Test
  void whatSparkDoesNotRunIsRefusedWithItsReasonAndNothingChanges() throws Exception {
    writeTable("refused");
    long snapshot = table("refused").currentSnapshot().snapshotId();
    CliRun r = cli("remove-dangling-deletes", "db.refused", "--yes");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip())
        .startsWith("error: engine spark does not run remove-dangling-deletes on iceberg tables")
        .doesNotContain("\n");
    assertThat(table("refused").currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void aFileSparkProposesButOurFencesRefuseIsNotDeleted() throws Exception {
    writeTable("fenced");
    sql.rows("CREATE TABLE lake.db.neighbour (id BIGINT) USING iceberg");
    sql.rows("INSERT INTO lake.db.neighbour VALUES (1), (2)");
    Table neighbour = table("neighbour");
    Path neighbourFile = Path.of(neighbour
        .currentSnapshot()
        .addedDataFiles(neighbour.io())
        .iterator()
        .next()
        .location()
        .replaceFirst("^file:", ""));
    // a link in our data directory to the neighbour's live data file: Spark's listing follows it,
    // ours does not
    Path link = Path.of(
        table("fenced").location().replaceFirst("^file:", ""),
        "data",
        "cat=a",
        "looks-orphaned.parquet");
    Files.createSymbolicLink(link, neighbourFile);
    age(neighbourFile);
    List<String> neighbourRows = Content.of(neighbour);

    JsonNode r = json("remove-orphans", "db.fenced", "--older-than", "1d", "--yes");

    assertThat(r.at("/metrics/spark_candidates").asLong()).as(r.toString()).isEqualTo(1);
    assertThat(r.at("/metrics/refused_by_fences").asLong()).isEqualTo(1);
    assertThat(r.at("/metrics/deleted_files").asLong()).isZero();
    assertThat(link).exists();
    assertThat(neighbourFile).exists();
    assertThat(Content.of(table("neighbour"))).isEqualTo(neighbourRows);
  }

  @Test
  void aNeighbourTableInsideTheLocationRefusesTheRun() throws Exception {
    writeTable("outer");
    String inner = table("outer").location() + "/data/inner";
    sql.rows("CREATE TABLE lake.db.inner (id BIGINT) USING iceberg LOCATION '" + inner + "'");
    sql.rows("INSERT INTO lake.db.inner VALUES (1), (2)");
    List<Path> innerFiles;
    try (var files = Files.walk(Path.of(inner.replaceFirst("^file:", "")))) {
      innerFiles = files.filter(Files::isRegularFile).toList();
    }
    for (Path f : innerFiles) {
      age(f);
    }

    CliRun r = cli("remove-orphans", "db.outer", "--older-than", "1d", "--yes");

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(3);
    assertThat(r.err()).contains("inner");
    assertThat(innerFiles).allMatch(Files::exists);
    assertThat(Content.of(table("inner"))).hasSize(2);
  }

  /** Secret-valued engine options: by reference (a name Spark would not redact), and literal under credential names. */
  static final Map<String, String> SECRET_ENV = Map.of(
      "SPARK_TOKEN",
      "s3cr3t-token",
      "S3_SECRET",
      "s3cr3t-s3-key",
      "CUSTOM_AUTH",
      "s3cr3t-custom-auth");

  static final List<String> SECRET_VALUES = List.of(
      "s3cr3t-token", "s3cr3t-s3-key", "s3cr3t-custom-auth", "AKIAPLAINS3CR3T", "plain-s3cr3t-pw");
  static final String SECRET_CONF = """
          conf:
            spark.hadoop.fs.s3a.secret.key: ${env:S3_SECRET}
            spark.hadoop.fs.s3a.access.key: AKIAPLAINS3CR3T
            spark.resurfacer.test.auth: ${env:CUSTOM_AUTH}
            spark.resurfacer.test.password: plain-s3cr3t-pw
      """;

  @Test
  void anUnreachableClusterIsOneLineExitTwoAndNothingChanges() throws Exception {
    writeTable("unreached");
    long snapshot = table("unreached").currentSnapshot().snapshotId();
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Path yml = DIR.resolve("unreachable.yml");
    Files.writeString(yml, MaintainCliTest.catalogYml(DIR) + """
        engines:
          spark:
            remote: sc://127.0.0.1:%d/;token=${env:SPARK_TOKEN}
        """.formatted(closed) + SECRET_CONF);
    for (String verb :
        new String[] {"compact", "expire", "remove-orphans", "rewrite-manifests", "maintain"}) {
      String[] args = verb.equals("maintain")
          ? new String[] {
            verb,
            "--tables",
            "db.unreached",
            "--engine",
            "spark",
            "--yes",
            "--config",
            yml.toString()
          }
          : new String[] {
            verb, "db.unreached", "--engine", "spark", "--yes", "--config", yml.toString()
          };
      CliRun r = CliRun.run(DIR, SECRET_ENV, args);
      assertThat(r.exitCode()).as(verb + r.err()).isEqualTo(2);
      assertThat(r.err().strip())
          .as(verb)
          .startsWith("error: cannot reach Spark Connect at sc://127.0.0.1:" + closed)
          .doesNotContain("\n");
      assertNoSecret(verb, r);
    }
    for (String[] args : List.of(
        new String[] {"policy", "db.unreached", "--output", "json"},
        new String[] {"doctor", "--output", "json"})) {
      List<String> all = new ArrayList<>(List.of(args));
      all.addAll(List.of("--config", yml.toString()));
      CliRun r = CliRun.run(DIR, SECRET_ENV, all.toArray(String[]::new));
      assertThat(r.out()).as(String.join(" ", args)).isNotBlank();
      assertNoSecret(String.join(" ", args), r);
    }
    assertThat(table("unreached").currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  static void assertNoSecret(String what, CliRun r) {
    for (String secret : SECRET_VALUES) {
      assertThat(r.out()).as("%s stdout", what).doesNotContain(secret);
      assertThat(r.err()).as("%s stderr", what).doesNotContain(secret);
    }
  }

  @Test
  void secretSessionConfIsRedactedBySparkAndARefusedValueIsNamedWithoutIt() {
    Map<String, String> values = new java.util.LinkedHashMap<>();
    values.put("remote", CLUSTER.remote());
    values.put("conf.spark.resurfacer.test.auth", "s3cr3t-custom-auth");
    values.put("conf.spark.hadoop.fs.s3a.secret.key", "s3cr3t-s3-key");
    values.put("conf.spark.sql.shuffle.partitions", "3");
    dev.resurfacer.engines.EngineSettings settings = new dev.resurfacer.engines.EngineSettings(
        "spark", values, java.util.Set.of("conf.spark.resurfacer.test.auth"));
    try (ConnectSql secret = ConnectSql.open(settings)) {
      Map<String, Object> shown = new java.util.HashMap<>();
      for (Map<String, Object> row : secret.rows("SET")) {
        shown.put(String.valueOf(row.get("key")), row.get("value"));
      }
      // the values are set (a non-secret one reads back), and Spark itself shows neither secret
      assertThat(shown).containsEntry("spark.sql.shuffle.partitions", "3");
      assertThat(shown)
          .containsKeys("spark.resurfacer.test.auth", "spark.hadoop.fs.s3a.secret.key");
      assertThat(shown.toString())
          .doesNotContain("s3cr3t-custom-auth")
          .doesNotContain("s3cr3t-s3-key");
    }

    values.put("conf.spark.sql.shuffle.partitions", "not-a-number-s3cr3t");
    dev.resurfacer.engines.EngineSettings refused = new dev.resurfacer.engines.EngineSettings(
        "spark",
        values,
        java.util.Set.of("conf.spark.resurfacer.test.auth", "conf.spark.sql.shuffle.partitions"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConnectSql.open(refused))
        .isInstanceOf(dev.resurfacer.UsageException.class)
        .hasMessageStartingWith(
            "engines.spark.conf.spark.sql.shuffle.partitions: the cluster refused it: ")
        .satisfies(e ->
            assertThat(e.getMessage()).doesNotContain("not-a-number-s3cr3t").doesNotContain("\n"));
  }
}
