package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code maintain} over an Iceberg catalog and a delta catalog: one run, one report, each table its own format's operations. */
class DeltaMaintainCliTest {
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

  private static Path stray(Path p, Duration age) throws Exception {
    Files.createDirectories(p.getParent());
    Files.writeString(p, "x");
    Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(age)));
    return p;
  }

  @Test
  void icebergAndDeltaTablesAreMaintainedInOneRunAndOneReport() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Fleet.smallFiles(catalog, "raw", "orders", 3);
    }
    Path events = kernelTable("events");
    Path clicks = kernelTable("clicks");
    Path eventsStray = stray(events.resolve("part-old.parquet"), Duration.ofDays(10));
    Path clicksStray = stray(clicks.resolve("part-old.parquet"), Duration.ofDays(10));
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        MaintainCliTest.catalogYml(lake) + """
          deltas:
            type: delta
            tables:
              raw.events: %s
              web.clicks: %s
        defaults:
          remove-orphans: {enabled: false}
        tables:
          web.*:
            vacuum: {enabled: false}
        """.formatted(events, clicks));

    CliRun policy = CliRun.run(dir, "policy", "raw.events");
    assertThat(policy.exitCode()).as(policy.err()).isZero();
    assertThat(policy.out())
        .contains("raw.events (delta)")
        .contains("vacuum")
        .contains("cleanup-log")
        .doesNotContain("expire");

    CliRun preview = CliRun.run(dir, "maintain", "--output", "json");
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    Map<String, JsonNode> tables = byTable(new ObjectMapper().readTree(preview.out()));
    assertThat(tables.keySet())
        .containsExactlyInAnyOrder("lake.raw.orders", "deltas.raw.events", "deltas.web.clicks");
    assertThat(operations(tables.get("lake.raw.orders")))
        .containsExactly("compact", "remove-dangling-deletes", "rewrite-manifests", "expire");
    assertThat(operations(tables.get("deltas.raw.events")))
        .containsExactly("compact", "vacuum", "cleanup-log");
    assertThat(operations(tables.get("deltas.web.clicks")))
        .containsExactly("compact", "cleanup-log");
    assertThat(tables
            .get("deltas.raw.events")
            .get("operations")
            .get(1)
            .get("message")
            .asText())
        .startsWith("would delete 1 file");
    assertThat(eventsStray).exists();

    CliRun act = CliRun.run(
        dir, "maintain", "--yes", "--report", "report.html", "--metrics-file", "resurfacer.prom");
    assertThat(act.exitCode()).as(act.out() + act.err()).isZero();
    assertThat(act.out()).contains("raw.events").contains("raw.orders");
    assertThat(eventsStray).as("vacuumed by policy").doesNotExist();
    assertThat(clicksStray).as("vacuum disabled for web.*").exists();
    assertThat(Files.readString(dir.resolve("report.html")))
        .contains("raw.events")
        .contains("raw.orders");
    assertThat(Files.readString(dir.resolve("resurfacer.prom")))
        .contains("catalog=\"deltas\"")
        .contains("catalog=\"lake\"");

    CliRun only = CliRun.run(dir, "maintain", "--tables", "web.*", "--output", "json");
    assertThat(byTable(new ObjectMapper().readTree(only.out())).keySet())
        .containsExactly("deltas.web.clicks");
  }

  private static Map<String, JsonNode> byTable(JsonNode report) {
    Map<String, JsonNode> m = new HashMap<>();
    report
        .get("tables")
        .forEach(t -> m.put(t.get("catalog").asText() + "." + t.get("table").asText(), t));
    return m;
  }

  private static java.util.List<String> operations(JsonNode table) {
    java.util.List<String> out = new java.util.ArrayList<>();
    table.get("operations").forEach(o -> out.add(o.get("operation").asText()));
    return out;
  }
}
