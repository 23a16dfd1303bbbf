package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Delta verbs on a table in Azure storage (Azurite) through the real command line: a delta
 * catalog with Iceberg's {@code adls.*} keys, the account key by reference. Their behaviour on
 * delta-spark tables on Azurite is {@code resurfacer-delta}'s {@code AzureDeltaTableTest}.
 */
class DeltaAzureCliTest {
  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("deltas");

  @TempDir
  Path dir;

  private static Set<String> names(String prefix) {
    Set<String> out = new TreeSet<>();
    for (BlobItem b :
        AZURE.blobs().listBlobs(new ListBlobsOptions().setPrefix(prefix + "/"), null)) {
      out.add(b.getName().substring(prefix.length() + 1));
    }
    return out;
  }

  @Test
  void describeVacuumAndMaintainATableInAzureStorage() throws Exception {
    Path local = dir.resolve("local/events");
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    TableManager.buildCreateTableTransaction(
            local.toUri().toString(),
            new StructType().add("id", LongType.LONG).add("v", StringType.STRING),
            "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    try (Stream<Path> s = Files.walk(local)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        AZURE
            .blobs()
            .getBlobClient("wh/events/" + local.relativize(p))
            .uploadFromFile(p.toString(), true);
      }
    }
    AZURE
        .blobs()
        .getBlobClient("wh/events/stray.parquet")
        .upload(com.azure.core.util.BinaryData.fromString("x"), true);
    AZURE
        .blobs()
        .getBlobClient("wh/events2/part-0.parquet")
        .upload(com.azure.core.util.BinaryData.fromString("x"), true);
    Set<String> log = new TreeSet<>(names("wh/events"));
    log.remove("stray.parquet");
    Thread.sleep(
        1100); // Azure's modification times are whole seconds: the stray is strictly older than a
    // zero retention's cutoff
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          deltas:
            type: delta
            tables:
              raw.events: abfss://deltas@%s/wh/events
            properties:
              adls.connection-string.%s: %s
              adls.auth.shared-key.account.name: %s
              adls.auth.shared-key.account.key: ${env:AZURE_KEY}
        """.formatted(
        AzuriteServer.DFS_HOST, AzuriteServer.DFS_HOST, AZURE.endpoint(), AzuriteServer.ACCOUNT));
    Map<String, String> env = Map.of("AZURE_KEY", AzuriteServer.KEY);

    CliRun describe = CliRun.run(dir, env, "describe", "raw.events", "--output", "json");
    assertThat(describe.exitCode()).as(describe.err()).isZero();
    JsonNode health = new ObjectMapper().readTree(describe.out());
    assertThat(health.get("format").asText()).isEqualTo("delta");
    assertThat(health.get("version").asLong()).isZero();
    // by location, in the Blob host's wasbs spelling: the only delta catalog's connection serves it
    CliRun byLocation = CliRun.run(
        dir, env, "describe", "wasbs://deltas@" + AzuriteServer.BLOB_HOST + "/wh/events");
    assertThat(byLocation.exitCode()).as(byLocation.err()).isZero();
    assertThat(byLocation.out()).contains("(delta, version 0");

    CliRun preview =
        CliRun.run(dir, env, "vacuum", "raw.events", "--retention", "0s", "--force-retention");
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    assertThat(preview.out())
        .contains("preview: nothing deleted")
        .contains("wh/events/stray.parquet")
        .doesNotContain("events2");
    assertThat(names("wh/events")).contains("stray.parquet");

    CliRun act = CliRun.run(
        dir,
        env,
        "vacuum",
        "raw.events",
        "--retention",
        "0s",
        "--force-retention",
        "--yes",
        "--output",
        "json");
    assertThat(act.exitCode()).as(act.err()).isZero();
    assertThat(new ObjectMapper().readTree(act.out()).get("deleted_files").asLong())
        .isEqualTo(1);
    assertThat(names("wh/events")).isEqualTo(log);
    assertThat(names("wh/events2"))
        .as("a neighbour sharing the text prefix")
        .containsExactly("part-0.parquet");

    CliRun maintain = CliRun.run(dir, env, "maintain", "--yes", "--output", "json");
    assertThat(maintain.exitCode()).as(maintain.out() + maintain.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(maintain.out());
    assertThat(report.get("tables")).hasSize(1);
    assertThat(report.get("tables").get(0).get("table").asText()).isEqualTo("raw.events");
    assertThat(names("wh/events")).containsAll(log);

    CliRun badLocation = CliRun.run(dir, env, "describe", "abfss://deltas/wh/events");
    assertThat(badLocation.exitCode()).isEqualTo(Main.USAGE);
    assertThat(badLocation.err().lines()).hasSize(1);
    for (CliRun r : new CliRun[] {describe, byLocation, preview, act, maintain, badLocation}) {
      assertThat(r.out() + r.err()).doesNotContain(AzuriteServer.KEY);
    }
  }
}
