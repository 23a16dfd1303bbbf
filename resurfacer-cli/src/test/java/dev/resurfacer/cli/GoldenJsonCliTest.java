package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON contract of every verb with {@code --output json}, pinned by golden files (see {@link Golden} for
 * how to regenerate them): each verb runs in process on a small table written by Iceberg's or Delta Kernel's
 * own writer, preview first and then acting where the verb acts.
 */
class GoldenJsonCliTest {
  @TempDir
  Path dir;

  /** Four single-file commits of 5 rows each in the embedded default catalog, plus one old stray file. */
  private Table icebergTable() throws Exception {
    try (JdbcCatalog catalog =
        SqliteCatalogs.create("resurfacer", dir.resolve("resurfacer-data"))) {
      Fleet.smallFiles(catalog, "db", "t", 4);
      Table t = catalog.loadTable(TableIdentifier.of("db", "t"));
      String location = t.location();
      Path root =
          location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
      DeltaCliTest.file(root.resolve("data/stray-orphan.parquet"), Duration.ofDays(10));
      return t;
    }
  }

  private CliRun json(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--output");
    all.add("json");
    CliRun r = CliRun.run(dir, all.toArray(String[]::new));
    assertThat(r.exitCode())
        .as(String.join(" ", args) + "\n" + r.out() + r.err())
        .isZero();
    return r;
  }

  private void golden(String name, String... args) {
    Golden.assertJson(name, json(args).out(), dir);
  }

  /** A maintain report: each operation's metrics is a {@code Map.of}, so its order is not part of the contract. */
  private void goldenMaintain(String name, String... args) {
    Golden.assertJson(name, json(args).out(), Set.of("metrics"), dir);
  }

  /** A policy: each operation's settings is a {@code Map.of}, so their order is not part of the contract. */
  private void goldenPolicy(String name, String... args) throws Exception {
    String out = json(args).out();
    Set<String> operations = new HashSet<>();
    new ObjectMapper()
        .readTree(out)
        .get("operations")
        .fieldNames()
        .forEachRemaining(operations::add);
    Golden.assertJson(name, out, operations, dir);
  }

  @Test
  void icebergReadOnlyVerbs() throws Exception {
    icebergTable();
    golden("iceberg-describe", "describe", "db.t");
    golden("iceberg-plan", "plan", "db.t", "--min-input-files", "2");
    goldenPolicy("iceberg-policy", "policy", "db.t");
    Path reports = dir.resolve("reports");
    Files.createDirectories(reports);
    Files.writeString(
        reports.resolve("r.jsonl"),
        "{\"format\":\"resurfacer-scan-report\",\"version\":1,\"kind\":\"scan\","
            + "\"time\":\"2026-11-01T10:00:00Z\",\"producer\":\"trino\",\"table\":\"resurfacer.db.t\","
            + "\"filter\":{\"type\":\"eq\",\"term\":\"id\",\"value\":3},\"filter-values\":true,\"projected-field-names\":[\"id\"],"
            + "\"data-files-scanned\":4,\"data-files-skipped\":0,\"bytes-scanned\":4000}\nnot a report\n");
    golden("iceberg-advise", "advise", "db.t", "--scan-reports", reports.toString());
  }

  @Test
  void icebergCompact() throws Exception {
    icebergTable();
    golden("iceberg-compact-preview", "compact", "db.t", "--min-input-files", "2");
    golden("iceberg-compact", "compact", "db.t", "--min-input-files", "2", "--yes");
  }

  @Test
  void icebergExpireAndOrphans() throws Exception {
    icebergTable();
    golden("iceberg-expire-preview", "expire", "db.t", "--older-than", "0s", "--retain-last", "1");
    golden("iceberg-expire", "expire", "db.t", "--older-than", "0s", "--retain-last", "1", "--yes");
    golden("iceberg-remove-orphans-preview", "remove-orphans", "db.t");
    CliRun quarantine = json("remove-orphans", "db.t", "--quarantine", "--yes");
    Golden.assertJson("iceberg-remove-orphans-quarantine", quarantine.out(), dir);
    String runId =
        new ObjectMapper().readTree(quarantine.out()).get("quarantine_run").asText();
    golden("iceberg-restore-orphans", "restore-orphans", "db.t", runId, "--yes");
    golden("iceberg-remove-orphans", "remove-orphans", "db.t", "--yes");
  }

  @Test
  void icebergMetadataVerbs() throws Exception {
    icebergTable();
    golden("iceberg-rewrite-manifests-preview", "rewrite-manifests", "db.t");
    golden("iceberg-rewrite-manifests", "rewrite-manifests", "db.t", "--yes");
    golden("iceberg-remove-dangling-deletes", "remove-dangling-deletes", "db.t", "--yes");
    golden("iceberg-rewrite-position-deletes", "rewrite-position-deletes", "db.t", "--yes");
    golden("iceberg-convert-equality-deletes", "convert-equality-deletes", "db.t", "--yes");
    golden("iceberg-compute-stats-preview", "compute-stats", "db.t");
    golden("iceberg-compute-stats", "compute-stats", "db.t", "--yes");
    golden("iceberg-compute-partition-stats", "compute-partition-stats", "db.t", "--yes");
    golden("iceberg-apply-retention", "apply-retention", "db.t", "--keep", "2", "--yes");
    golden("iceberg-condense", "condense", "db.t", "--older-than", "1d");
    golden("iceberg-upgrade-preview", "upgrade", "db.t", "--format-version", "3");
    golden("iceberg-upgrade", "upgrade", "db.t", "--format-version", "3", "--yes");
  }

  @Test
  void icebergMaintain() throws Exception {
    icebergTable();
    goldenMaintain("iceberg-maintain-preview", "maintain", "--tables", "db.t", "--quiet");
    goldenMaintain("iceberg-maintain", "maintain", "--tables", "db.t", "--quiet", "--yes");
  }

  @Test
  void environmentVerbs() throws Exception {
    golden("engines", "engines");
    CliRun doctor = json("doctor");
    // a check's detail names this machine's Java, paths and memory; its name and status are the
    // contract
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode) new ObjectMapper().readTree(doctor.out());
    tree.get("checks")
        .forEach(
            c -> ((com.fasterxml.jackson.databind.node.ObjectNode) c).put("detail", "<detail>"));
    Golden.assertJson("doctor", new ObjectMapper().writeValueAsString(tree), dir);
  }

  /** An empty Delta table created by Delta Kernel, then two data files written by DuckDB and added by Kernel. */
  private Path deltaTable() throws Exception {
    Path t = dir.resolve("events");
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    var schema = new StructType().add("id", LongType.LONG).add("v", StringType.STRING);
    TableManager.buildCreateTableTransaction(t.toUri().toString(), schema, "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    for (int f = 0; f < 2; f++) {
      Path file = t.resolve("part-" + f + ".parquet");
      try (var c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
          var st = c.createStatement()) {
        st.execute("COPY (SELECT range + " + (f * 10)
            + " AS id, 'v' || range AS v FROM range(10)) TO '" + file + "' (FORMAT parquet)");
      }
      DeltaKernelWrites.add(t, file);
    }
    DeltaCliTest.file(t.resolve("stray.parquet"), Duration.ofDays(10));
    return t;
  }

  @Test
  void deltaVerbs() throws Exception {
    String t = deltaTable().toString();
    golden("delta-describe", "describe", t);
    golden("delta-plan", "plan", t);
    golden("delta-compact-preview", "compact", t);
    golden("delta-compact", "compact", t, "--yes");
    golden("delta-vacuum-preview", "vacuum", t);
    golden("delta-vacuum", "vacuum", t, "--yes");
    golden("delta-checkpoint-preview", "checkpoint", t);
    golden("delta-checkpoint", "checkpoint", t, "--yes");
    golden("delta-cleanup-log", "cleanup-log", t, "--yes");
    Path reports = dir.resolve("reports.jsonl");
    Files.writeString(
        reports,
        "{\"format\":\"resurfacer-scan-report\",\"table\":\"" + t + "\",\"data-files-scanned\":0,"
            + "\"filter\":{\"type\":\"eq\",\"term\":\"id\",\"value\":3}}\nnot a report\n");
    golden("delta-advise", "advise", t, "--scan-reports", reports.toString());
  }

  @Test
  void deltaMaintain() throws Exception {
    Path t = deltaTable();
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      raw.events: " + t + "\n");
    goldenPolicy("delta-policy", "policy", "raw.events");
    goldenMaintain("delta-maintain-preview", "maintain", "--quiet");
    goldenMaintain("delta-maintain", "maintain", "--quiet", "--yes");
  }
}
