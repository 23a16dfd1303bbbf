package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTables;
import io.delta.kernel.Operation;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Delta verbs through the real command line; the Delta module's tests cover their behaviour on Spark-written tables. */
class DeltaCliTest {
  @TempDir
  Path dir;

  private Path kernelTable(String name) {
    Path t = dir.resolve(name);
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    var schema = new StructType().add("id", LongType.LONG).add("v", StringType.STRING);
    TableManager.buildCreateTableTransaction(t.toUri().toString(), schema, "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    return t;
  }

  static Path file(Path p, Duration age) throws Exception {
    Files.createDirectories(p.getParent());
    Files.writeString(p, "x");
    Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(age)));
    return p;
  }

  @Test
  void adviseReadsADeltaTablesReports() throws Exception {
    Path t = kernelTable("events");
    Path reports = dir.resolve("reports.jsonl");
    Files.writeString(
        reports,
        "{\"format\":\"resurfacer-scan-report\",\"table\":\"" + t + "\",\"data-files-scanned\":0,"
            + "\"filter\":{\"type\":\"eq\",\"term\":\"id\",\"value\":3}}\nnot a report\n");
    CliRun run = CliRun.run(
        dir, "advise", t.toString(), "--scan-reports", reports.toString(), "--output", "json");
    assertThat(run.exitCode()).as(run.err()).isZero();
    var advice = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
    assertThat(advice.get("scans").asInt()).isEqualTo(1);
    assertThat(advice.get("skipped_lines").asInt()).isEqualTo(1);
    assertThat(advice.get("recommendation").isNull()).isTrue();
    assertThat(advice.get("reason").asText()).startsWith("no rows sampled");
  }

  @Test
  void describeAndVacuumADeltaTableByConfiguredNameAndByPath() throws Exception {
    Path t = kernelTable("events");
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(10));
    Path young = file(t.resolve("young.parquet"), Duration.ofHours(1));
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      raw.events: " + t + "\n");

    CliRun describe = CliRun.run(dir, "describe", "raw.events", "--output", "json");
    assertThat(describe.exitCode()).as(describe.err()).isZero();
    JsonNode health = new ObjectMapper().readTree(describe.out());
    assertThat(health.get("format").asText()).isEqualTo("delta");
    assertThat(health.get("version").asLong()).isZero();
    assertThat(health.get("protocol").get("min_reader_version").asInt()).isPositive();
    assertThat(CliRun.run(dir, "describe", "./events").out()).contains("(delta, version 0");

    CliRun preview = CliRun.run(dir, "vacuum", "raw.events");
    assertThat(preview.exitCode()).isZero();
    assertThat(preview.out())
        .contains("preview: nothing deleted")
        .contains(stray.toString())
        .doesNotContain(young.toString());
    assertThat(stray).exists();

    CliRun act = CliRun.run(dir, "vacuum", t.toString(), "--yes", "--output", "json");
    assertThat(act.exitCode()).as(act.err()).isZero();
    assertThat(new ObjectMapper().readTree(act.out()).get("deleted_files").asLong())
        .isEqualTo(1);
    assertThat(stray).doesNotExist();
    assertThat(young).exists();
  }

  /** The refusal comes from what the local engine declares: the same one line and exit code, before any engine is looked up. */
  @Test
  void theDeltaOnlyVerbsRefuseATableOfAnotherFormatWithOneLine() throws Exception {
    String notOne = "' is neither a table of a delta catalog in the configuration nor a path";
    String[][] runs = {
      {
        "vacuum works on Delta tables: 'db.orders" + notOne
            + " (for Iceberg tables use expire and remove-orphans)",
        "vacuum",
        "db.orders"
      },
      {
        "vacuum works on Delta tables: 'db.orders" + notOne
            + " (for Iceberg tables use expire and remove-orphans)",
        "vacuum",
        "db.orders",
        "--engine",
        "nosuch",
        "--yes"
      },
      {"checkpoint works on Delta tables: 'db.orders" + notOne, "checkpoint", "db.orders", "--yes"},
      {
        "cleanup-log works on Delta tables: 'db.orders" + notOne,
        "cleanup-log",
        "db.orders",
        "--output",
        "json"
      }
    };
    for (String[] run : runs) {
      CliRun r = CliRun.run(dir, java.util.Arrays.copyOfRange(run, 1, run.length));
      assertThat(r.exitCode()).as(String.join(" ", run)).isEqualTo(Main.USAGE);
      assertThat(r.out()).isEmpty();
      assertThat(r.err().lines()).as(r.err()).containsExactly("error: " + run[0]);
    }
  }

  /**
   * The Iceberg-only verbs, all through the one dispatcher: a Delta table, by configured name or by path, is
   * looked up in the Iceberg catalog and gets the one line {@code expire} gets for it, and its log is untouched.
   */
  @Test
  void theIcebergOnlyVerbsRefuseADeltaTableWithOneLineAndChangeNothing() throws Exception {
    Path t = kernelTable("events");
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      raw.events: " + t + "\n");
    java.util.List<String> logBefore;
    try (var files = Files.list(t.resolve("_delta_log"))) {
      logBefore = files.map(Path::toString).sorted().toList();
    }
    String[][] verbs = {
      {"upgrade", "--format-version", "3"},
      {"condense", "--older-than", "1d"},
      {"apply-retention"},
      {"convert-equality-deletes"},
      {"rewrite-position-deletes"},
      {"remove-dangling-deletes"},
      {"rewrite-manifests"},
      {"compute-stats"},
      {"compute-partition-stats"}
    };
    for (String name : new String[] {"raw.events", t.toString()}) {
      CliRun expire = CliRun.run(dir, "expire", name, "--yes");
      assertThat(expire.exitCode()).as(expire.err()).isEqualTo(Main.USAGE);
      assertThat(expire.err().lines()).as(expire.err()).hasSize(1);
      for (String[] verb : verbs) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(verb[0], name));
        args.addAll(java.util.Arrays.asList(verb).subList(1, verb.length));
        args.add("--yes");
        CliRun r = CliRun.run(dir, args.toArray(String[]::new));
        assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo(expire.err());
      }
    }
    try (var files = Files.list(t.resolve("_delta_log"))) {
      assertThat(files.map(Path::toString).sorted().toList()).isEqualTo(logBefore);
    }
  }

  @Test
  void badInputIsOneLineAndChangesNothing() throws Exception {
    Path t = kernelTable("events");
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(3));

    CliRun shortRetention = CliRun.run(dir, "vacuum", t.toString(), "--retention", "1d", "--yes");
    assertThat(shortRetention.exitCode()).isEqualTo(Main.REFUSED);
    assertThat(shortRetention.err().lines())
        .hasSize(1)
        .first()
        .asString()
        .contains("shorter than the table's");
    assertThat(stray).exists();

    CliRun unloadable = CliRun.run(dir, "vacuum", t.toString(), "--keep-versions", "0,5", "--yes");
    assertThat(unloadable.exitCode()).isEqualTo(Main.USAGE);
    assertThat(unloadable.err().lines())
        .hasSize(1)
        .first()
        .asString()
        .contains("--keep-versions 5: version 5");
    assertThat(stray).exists();

    CliRun lite = CliRun.run(
        dir, "vacuum", t.toString(), "--lite", "--retention", "1d", "--force-retention", "--yes");
    assertThat(lite.exitCode()).as(lite.err()).isZero();
    assertThat(lite.out()).contains("lite: nothing listed");
    assertThat(stray).as("lite never touches files the log does not name").exists();

    CliRun notDelta = CliRun.run(dir, "vacuum", "db.orders");
    assertThat(notDelta.exitCode()).isEqualTo(Main.USAGE);
    assertThat(notDelta.err()).contains("vacuum works on Delta tables");

    CliRun missing = CliRun.run(dir, "describe", dir.resolve("nope").toString());
    assertThat(missing.exitCode()).isEqualTo(Main.USAGE);
    assertThat(missing.err()).contains("is not a Delta table");

    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      events: /x\n");
    CliRun badConfig = CliRun.run(dir, "describe", "raw.events");
    assertThat(badConfig.exitCode()).isEqualTo(Main.USAGE);
    assertThat(badConfig.err()).contains("a table name is namespace.table");
    assertThat(stray).exists();
  }

  @Test
  void planAndCompactRouteDeltaTablesAndRefuseIcebergOnlyFlags() throws Exception {
    Path t = kernelTable("events");
    CliRun plan = CliRun.run(dir, "plan", t.toString(), "--output", "json");
    assertThat(plan.exitCode()).as(plan.err()).isZero();
    assertThat(new ObjectMapper().readTree(plan.out()).get("format").asText()).isEqualTo("delta");
    assertThat(CliRun.run(dir, "compact", t.toString(), "--yes").out())
        .contains("nothing to compact");

    CliRun sortBy = CliRun.run(
        dir, "compact", t.toString(), "--strategy", "zorder", "--columns", "id", "--sort-by", "id");
    assertThat(sortBy.exitCode()).isEqualTo(Main.USAGE);
    assertThat(sortBy.err()).contains("--sort-by does not apply to Delta tables");

    var duck = new ObjectMapper()
        .readTree(CliRun.run(dir, "plan", t.toString(), "--memory", "512MB", "--output", "json")
            .out());
    assertThat(duck.get("runner").asText()).isEqualTo("duckdb");
    assertThat(duck.get("runner_reason").asText()).contains("memory limit 512");
    var kernel = new ObjectMapper()
        .readTree(CliRun.run(dir, "plan", t.toString(), "--runner", "generic", "--output", "json")
            .out());
    assertThat(kernel.get("runner").asText()).isEqualTo("kernel");
    CliRun tooLittle = CliRun.run(dir, "plan", t.toString(), "--memory", "10MB");
    assertThat(tooLittle.exitCode()).isEqualTo(Main.USAGE);
    assertThat(tooLittle.err().lines())
        .hasSize(1)
        .first()
        .asString()
        .contains("--memory must be at least");
    CliRun badRunner = CliRun.run(dir, "plan", t.toString(), "--runner", "spark");
    assertThat(badRunner.exitCode()).isEqualTo(Main.USAGE);
    assertThat(badRunner.err()).contains("--runner must be auto, duckdb or generic");
  }

  /**
   * {@code --verify count} reaches Delta compaction; a bin whose input files the log has no row count
   * for (added without stats) is verified by content all the same, so its line still gives the
   * verification's time; a bad mode is one line and changes nothing.
   */
  @Test
  void verifyCountReachesDeltaAndABinWithoutRowCountsIsVerifiedByContent() throws Exception {
    Path t = kernelTable("events");
    try (var c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        var st = c.createStatement()) {
      for (int i = 0; i < 2; i++) {
        Path f = t.resolve("part-" + i + ".parquet");
        st.execute("COPY (SELECT range + " + (i * 10) + " AS id, 'v' || range AS v FROM range(10))"
            + " TO '" + f + "' (FORMAT parquet)");
        DeltaKernelWrites.add(t, f);
      }
    }
    CliRun bad = CliRun.run(dir, "compact", t.toString(), "--verify=sometimes", "--yes");
    assertThat(bad.exitCode()).isEqualTo(Main.USAGE);
    assertThat(bad.err().lines()).hasSize(1).first().asString().contains("--verify must be");
    assertThat(CliRun.run(dir, "describe", t.toString()).out()).contains("version 2");

    CliRun count = CliRun.run(dir, "compact", t.toString(), "--verify=count", "--yes");
    assertThat(count.exitCode()).as(count.out() + count.err()).isZero();
    assertThat(count.out())
        .contains("2 files")
        .contains("20 rows")
        .contains(", verified by count, content where the log has no row count, verification ");
    assertThat(CliRun.run(dir, "describe", t.toString()).out()).contains("version 3");
  }

  @Test
  void aFailedBinIsOneLineNamingTheTableAndTheFileAndTheRunDoesNotEndInCompacted()
      throws Exception {
    Path t = kernelTable("events");
    Path good = t.resolve("good.parquet");
    try (var c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        var st = c.createStatement()) {
      st.execute("COPY (SELECT range AS id, 'v' || range AS v FROM range(10)) TO '" + good
          + "' (FORMAT parquet)");
    }
    Path broken = file(t.resolve("broken.parquet"), Duration.ZERO);
    DeltaKernelWrites.add(t, good);
    DeltaKernelWrites.add(t, broken);
    for (String runner : List.of("duckdb", "generic")) {
      CliRun r = CliRun.run(dir, "compact", t.toString(), "--runner", runner, "--yes");
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
      List<String> lines = r.out().lines().toList();
      assertThat(lines).as(runner).hasSize(2);
      assertThat(lines.get(0))
          .startsWith("failed: " + t)
          .contains("bin of 2 files")
          .contains("broken.parquet");
      assertThat(lines.get(1)).startsWith("nothing compacted in " + t + ": 1 of 1 bins failed");
    }
    assertThat(CliRun.run(dir, "describe", t.toString()).out()).contains("version 2");
  }

  @Test
  void checkpointAndCleanupLogPreviewThenAct() throws Exception {
    Path t = kernelTable("events");
    CliRun preview = CliRun.run(dir, "checkpoint", t.toString());
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    assertThat(preview.out()).contains("would write a checkpoint of version 0");
    assertThat(t.resolve("_delta_log/00000000000000000000.checkpoint.parquet")).doesNotExist();
    assertThat(CliRun.run(dir, "checkpoint", t.toString(), "--yes").exitCode()).isZero();
    assertThat(t.resolve("_delta_log/00000000000000000000.checkpoint.parquet")).exists();

    CliRun cleanup = CliRun.run(dir, "cleanup-log", t.toString(), "--yes");
    assertThat(cleanup.exitCode()).as(cleanup.err()).isZero();
    assertThat(cleanup.out()).contains("to delete      0 log files");
    assertThat(t.resolve("_delta_log/00000000000000000000.json")).exists();
  }

  @Test
  void forcedShortRetentionDeletes() throws Exception {
    Path t = kernelTable("events");
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(3));
    CliRun r = CliRun.run(
        dir, Map.of(), "vacuum", t.toString(), "--retention", "1d", "--force-retention", "--yes");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(stray).doesNotExist();
  }

  /** Commits adding {@code file} (version n) then removing it with a tombstone dated {@code age} ago (version n + 1). */
  private static void addThenRemove(Path table, Path file, Duration age) throws Exception {
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    String uri = table.toUri().toString();
    List<Row> adds = DeltaKernelWrites.add(table, file);
    Row add = adds.get(0).getStruct(adds.get(0).getSchema().indexOf("add"));
    var remove = TableManager.loadSnapshot(uri)
        .build(engine)
        .buildUpdateTableTransaction("resurfacer-tests", Operation.WRITE)
        .build(engine);
    remove.commit(
        engine,
        CloseableIterable.inMemoryIterable(
            KernelIterators.of(List.of(KernelInternals.removeWithoutDataChange(
                add, Instant.now().minus(age).toEpochMilli())))));
  }

  @Test
  void thePolicysLiteAndKeptVersionsReachVacuumThroughMaintain() throws Exception {
    Path t = kernelTable("events");
    Path keptByVersionOne = file(t.resolve("kept.parquet"), Duration.ofDays(10));
    addThenRemove(t, keptByVersionOne, Duration.ofDays(9)); // versions 1 (live), 2 (tombstone)
    Path tombstoned = file(t.resolve("tombstoned.parquet"), Duration.ofDays(10));
    addThenRemove(t, tombstoned, Duration.ofDays(9)); // versions 3, 4
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(10));
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          lake:
            type: delta
            tables:
              raw.events: %s
        tables:
          raw.events:
            vacuum: {lite: true, keep-versions: [1]}
            compact: {enabled: false}
            cleanup-log: {enabled: false}
        """.formatted(t));

    CliRun policy = CliRun.run(dir, "policy", "raw.events");
    assertThat(policy.exitCode()).as(policy.err()).isZero();
    assertThat(policy.out())
        .contains("lite (tombstones in the log only, no listing)")
        .contains("keeping versions 1");

    CliRun act = CliRun.run(dir, "maintain", "--yes");
    assertThat(act.exitCode()).as(act.out() + act.err()).isZero();
    assertThat(tombstoned).as("an expired tombstone's file").doesNotExist();
    assertThat(keptByVersionOne).as("version 1 is kept").exists();
    assertThat(stray).as("lite lists nothing").exists();

    Files.writeString(
        dir.resolve("resurfacer.yml"),
        Files.readString(dir.resolve("resurfacer.yml"))
            .replace("{lite: true, keep-versions: [1]}", "{keep-versions: [1]}"));
    CliRun full = CliRun.run(dir, "maintain", "--yes");
    assertThat(full.exitCode()).as(full.out() + full.err()).isZero();
    assertThat(stray).as("full mode lists the table").doesNotExist();
    assertThat(keptByVersionOne).exists();
  }

  /** Neither delta-spark's VACUUM nor Trino's system.vacuum can keep versions or run lite: refused before the engine is reached. */
  @Test
  void aPolicysLiteOrKeptVersionsOnSparkOrTrinoIsOneLineBeforeConnecting() throws Exception {
    Path t = kernelTable("events");
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(10));
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    for (String engine : new String[] {"spark", "trino"}) {
      for (String setting : new String[] {"lite: true", "keep-versions: [0]"}) {
        Files.writeString(
            dir.resolve("resurfacer.yml"), """
            catalogs:
              lake:
                type: delta
                tables:
                  raw.events: %s
            engines:
              spark:
                remote: sc://127.0.0.1:%d
              trino:
                url: jdbc:trino://127.0.0.1:%d
            defaults:
              engine: %s
              vacuum: {%s}
              compact: {enabled: false}
            """.formatted(t, closed, closed, engine, setting));
        CliRun maintain = CliRun.run(dir, "maintain", "--yes");
        String key = setting.substring(0, setting.indexOf(':'));
        assertThat(maintain.exitCode()).as(engine + " " + setting).isEqualTo(2);
        assertThat(maintain.err().strip())
            .as(engine + " " + setting)
            .startsWith("error: raw.events: engine " + engine + " does not take vacuum " + key
                + " (--" + key + ", policy vacuum." + key + ") on delta tables: ")
            .endsWith("; run it with --engine local")
            .doesNotContain("\n")
            .doesNotContain("reach");
        assertThat(stray).exists();
      }
    }
  }

  @Test
  void aTableTwoCatalogsWouldNameIsRefusedBeforeAnythingRuns() throws Exception {
    Path t = kernelTable("lake/raw/events");
    Path stray = file(t.resolve("stray.parquet"), Duration.ofDays(10));
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          named:
            type: delta
            tables:
              raw.events: %s
          found:
            type: delta
            discover: %s
        tables:
          raw.events:
            vacuum: {keep-versions: [0]}
        """.formatted(t, dir.resolve("lake")));
    for (String[] args :
        new String[][] {{"maintain", "--yes"}, {"vacuum", "raw.events", "--yes"}}) {
      CliRun r = CliRun.run(dir, args);
      assertThat(r.exitCode()).as(String.join(" ", args) + r.out() + r.err()).isEqualTo(2);
      assertThat(r.err().strip())
          .as(String.join(" ", args))
          .startsWith("error: catalogs.named.tables.raw.events: ")
          .contains("is under catalogs.found.discover: ")
          .doesNotContain("\n");
      assertThat(stray).exists();
    }
  }
}
