package dev.resurfacer.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.spark.iceberg.SparkIceberg;
import dev.resurfacer.spark.testing.SparkCluster;
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
 * The Spark engine's Iceberg executors against a real standalone cluster with Spark Connect on
 * loopback. Spark writes the tables; every operation previews locally, runs on the cluster, and the
 * rows read back by Spark and by Iceberg's own reader stay identical, type-tagged.
 */
class SparkIcebergEngineTest {
  static final Path DIR = tempDir();
  static final SparkCluster CLUSTER = new SparkCluster().jdbcCatalog("lake", SqliteCatalogs.uri(DIR), SqliteCatalogs.warehouse(DIR));
  static JdbcCatalog catalog;
  static ConnectSql sql;
  static SparkIceberg spark;

  static Path tempDir() {
    try {
      return Files.createTempDirectory("spark-engine");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @BeforeAll
  static void start() {
    CLUSTER.start();
    catalog = SqliteCatalogs.create("lake", DIR);
    sql = ConnectSql.open(CLUSTER.remote(), Map.of());
    spark = new SparkIceberg(sql, Map.of(), null);
    sql.rows("CREATE NAMESPACE IF NOT EXISTS lake.db");
  }

  @AfterAll
  static void stop() {
    if (sql != null) {
      sql.close();
    }
    CLUSTER.close();
  }

  static void writeMessyTable(String name) {
    String t = "lake.db." + name;
    sql.rows("CREATE TABLE " + t + " (id BIGINT, cat STRING, amount DECIMAL(12,2), score DOUBLE, day DATE) USING iceberg"
        + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')");
    for (int batch = 0; batch < 4; batch++) {
      sql.rows("INSERT INTO " + t + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END, CAST(id * 1.25 AS DECIMAL(12,2)),"
          + " CASE WHEN id % 9 = 0 THEN NULL ELSE id / 7.0 END, date_add(DATE '2026-01-01', CAST(id % 30 AS INT))"
          + " FROM range(" + batch * 50 + ", " + (batch * 50 + 50) + ")");
    }
    sql.rows("DELETE FROM " + t + " WHERE id % 7 = 0");
    sql.rows("UPDATE " + t + " SET score = -0.0 WHERE id % 5 = 0");
  }

  static IcebergTable open(String name) {
    TableIdentifier id = TableIdentifier.of("db", name);
    return new IcebergTable(catalog, id, catalog.loadTable(id), "db." + name);
  }

  /** The table's rows as Spark reads them, rendered type-tagged by the table's schema like {@link Content}. */
  static List<String> sparkContent(Table table) {
    Schema schema = table.schema();
    List<GenericRecord> records = new ArrayList<>();
    for (Map<String, Object> row : sql.rows("SELECT * FROM lake.db." + table.name().substring(table.name().lastIndexOf('.') + 1))) {
      GenericRecord r = GenericRecord.create(schema);
      for (Types.NestedField f : schema.columns()) {
        Object v = row.get(f.name());
        r.setField(f.name(), v instanceof java.sql.Date d ? d.toLocalDate() : v);
      }
      records.add(r);
    }
    return Content.of(schema, records);
  }

  @SuppressWarnings("unchecked")
  static <O extends Operation> Step run(O op, IcebergTable t, Mode mode) throws Exception {
    for (OperationExecutor<?, IcebergTable> e : spark.executors()) {
      if (e.operationType() == op.getClass()) {
        t.table().refresh();
        return ((OperationExecutor<O, IcebergTable>) e).execute(op, t, mode);
      }
    }
    throw new AssertionError("no spark executor for " + op.name());
  }

  @Test
  void everyOperationRunsOnTheClusterWithThePreviewItPlannedAndTheSameRows() throws Exception {
    writeMessyTable("events");
    IcebergTable t = open("events");
    List<String> before = Content.of(t.table());
    assertThat(before).hasSize(200 - 29);
    assertThat(sparkContent(t.table())).isEqualTo(before);
    int snapshotsBefore = 0;
    for (var s : t.table().snapshots()) {
      snapshotsBefore++;
    }

    Compact compact = Compact.binpack().withOption("min-input-files", "2");
    Step preview = run(compact, t, Mode.PREVIEW);
    assertThat(preview.outcome()).isEqualTo(Outcome.PREVIEWED);
    Step done = run(compact, t, Mode.COMMIT);
    assertThat(done.outcome()).as(done.message()).isEqualTo(Outcome.DONE);
    assertThat(done.metrics().get("rewritten_files")).isEqualTo(preview.metrics().get("files_to_rewrite")).isPositive();
    assertThat(done.metrics().get("rewritten_bytes")).isEqualTo(preview.metrics().get("bytes_to_rewrite"));
    assertThat(t.table().currentSnapshot().operation()).isEqualTo("replace");
    assertThat(Content.of(t.table())).isEqualTo(before);

    Step manifests = run(new RewriteManifests(), t, Mode.COMMIT);
    assertThat(manifests.outcome()).as(manifests.message()).isIn(Outcome.DONE, Outcome.NOTHING_TO_DO);

    ExpireSnapshots expire = new ExpireSnapshots(Duration.ZERO, 1);
    Step expirePreview = run(expire, t, Mode.PREVIEW);
    assertThat(expirePreview.metrics().get("expired_snapshots")).isGreaterThanOrEqualTo(snapshotsBefore);
    Step expired = run(expire, t, Mode.COMMIT);
    assertThat(expired.outcome()).as(expired.message()).isEqualTo(Outcome.DONE);
    assertThat(expired.metrics().get("expired_snapshots")).isEqualTo(expirePreview.metrics().get("expired_snapshots"));
    assertThat(expired.metrics().get("deleted_files")).isEqualTo(expirePreview.metrics().get("deleted_files"));
    t.table().refresh();
    assertThat(t.table().snapshots()).hasSize(1);

    Path orphan = Path.of(t.table().location(), "data", "cat=a", "left-behind.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    RemoveOrphans orphans = new RemoveOrphans(Duration.ofDays(1));
    Step orphanPreview = run(orphans, t, Mode.PREVIEW);
    assertThat(orphanPreview.metrics()).containsEntry("spark_candidates", 1L).containsEntry("orphan_files", 1L);
    assertThat(orphan).exists();
    Step removed = run(orphans, t, Mode.COMMIT);
    assertThat(removed.metrics()).containsEntry("deleted_files", 1L).containsEntry("refused_by_fences", 0L);
    assertThat(orphan).doesNotExist();

    assertThat(Content.of(t.table())).isEqualTo(before);
    assertThat(sparkContent(t.table())).isEqualTo(before);
  }

  @Test
  void aFileSparkProposesButOurFencesRefuseIsNotDeleted() throws Exception {
    writeMessyTable("fenced");
    IcebergTable t = open("fenced");
    sql.rows("CREATE TABLE lake.db.neighbour (id BIGINT) USING iceberg");
    sql.rows("INSERT INTO lake.db.neighbour VALUES (1), (2)");
    Table neighbour = catalog.loadTable(TableIdentifier.of("db", "neighbour"));
    Path neighbourFile = Path.of(neighbour.currentSnapshot().addedDataFiles(neighbour.io()).iterator().next().location()
        .replaceFirst("^file:", ""));
    // a link in our data directory to the neighbour's live data file: Spark's listing follows it, ours does not
    Path link = Path.of(t.table().location(), "data", "cat=a", "looks-orphaned.parquet");
    Files.createSymbolicLink(link, neighbourFile);
    Files.setLastModifiedTime(neighbourFile, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    List<String> neighbourRows = Content.of(neighbour);

    Step step = run(new RemoveOrphans(Duration.ofDays(1)), t, Mode.COMMIT);

    assertThat(step.metrics().get("spark_candidates")).as(step.message()).isEqualTo(1L);
    assertThat(step.metrics()).containsEntry("refused_by_fences", 1L).containsEntry("deleted_files", 0L);
    assertThat(link).exists();
    assertThat(neighbourFile).exists();
    assertThat(Content.of(neighbour)).isEqualTo(neighbourRows);
  }

  @Test
  void aNeighbourTableInsideTheLocationRefusesTheSparkPath() throws Exception {
    writeMessyTable("outer");
    IcebergTable t = open("outer");
    String inner = t.table().location() + "/data/inner";
    sql.rows("CREATE TABLE lake.db.inner (id BIGINT) USING iceberg LOCATION '" + inner + "'");
    sql.rows("INSERT INTO lake.db.inner VALUES (1), (2)");
    Table innerTable = catalog.loadTable(TableIdentifier.of("db", "inner"));
    List<Path> innerFiles;
    try (var files = Files.walk(Path.of(inner.replaceFirst("^file:", "")))) {
      innerFiles = files.filter(Files::isRegularFile).toList();
    }
    for (Path f : innerFiles) {
      Files.setLastModifiedTime(f, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    }

    assertThatThrownBy(() -> run(new RemoveOrphans(Duration.ofDays(1)), t, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class).hasMessageContaining("inner");
    assertThat(innerFiles).allMatch(Files::exists);
    assertThat(Content.of(innerTable)).hasSize(2);
  }

  @Test
  void anUnreachableClusterIsOneLineAndChangesNothing() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    assertThatThrownBy(() -> ConnectSql.open("sc://127.0.0.1:" + closed + "/;token=hunter2", Map.of()))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("cannot reach Spark Connect at sc://127.0.0.1:" + closed)
        .hasMessageNotContaining("hunter2")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
