package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.scan.LogicalRows;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.GcsEmulator;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.S3Server;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code maintain --yes} through the command line over a resurfacer.yml mixing Iceberg
 * catalogs on local disk, in S3 (s3proxy) and on Google Cloud Storage (firebase-tools' emulator) and
 * a Delta table in Azure storage (Azurite), the S3 secret and the Azure key by reference: an orphan planted in each is
 * removed, every live file stays, and every table reads the same rows after (Iceberg's reader, and
 * Delta Kernel's for the Delta table).
 */
class MixedCloudMaintainCliTest {
  @RegisterExtension
  static final GcsEmulator GCS = new GcsEmulator("mixed");

  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("mixed");

  @RegisterExtension
  static final S3Server S3 = new S3Server("mixed");

  private static final StructType SCHEMA =
      new StructType().add("id", LongType.LONG).add("v", StringType.STRING);

  @TempDir
  Path dir;

  /**
   * A Delta table made by Delta Kernel with three small data files (written by DuckDB, added by
   * Kernel commits), a vacuum retention of one second so a planted file can be due in the run.
   */
  private Path deltaTable(Path root) throws Exception {
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    TableManager.buildCreateTableTransaction(root.toUri().toString(), SCHEMA, "resurfacer-tests")
        .withTableProperties(Map.of("delta.deletedFileRetentionDuration", "interval 1 seconds"))
        .build(engine)
        .commit(engine, io.delta.kernel.utils.CloseableIterable.emptyIterable());
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (int i = 0; i < 3; i++) {
        Path file = root.resolve("part-0000" + i + ".parquet");
        s.execute("COPY (SELECT range::BIGINT AS id, 'v' || range AS v FROM range(" + (i * 10)
            + ", " + (i * 10 + 10) + ")) TO '" + file + "' (FORMAT parquet)");
        DeltaKernelWrites.add(root, file);
      }
    }
    return root;
  }

  private static List<String> deltaRows(String location, CatalogConfig catalog, Path dir) {
    List<String> out = new ArrayList<>();
    try (DeltaTable t =
        DeltaTables.open("raw.events", location, dir, DeltaTables.settings(catalog))) {
      LogicalRows.forEach(t, t.latest(), r -> out.add(r.getLong(0) + ":" + r.getString(1)));
    }
    out.sort(null);
    return out;
  }

  private static List<String> liveIcebergFiles(Table t) throws Exception {
    List<String> out = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      tasks.forEach(task -> out.add(task.file().location()));
    }
    return out;
  }

  @Test
  void oneMaintainRunCoversLocalAndCloudStorageIcebergCatalogsAndAnAzureDeltaTable()
      throws Exception {
    Map<String, CatalogConfig> iceberg = new HashMap<>();
    iceberg.put(
        "local",
        new CatalogConfig(
            "local",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("local")),
            SqliteCatalogs.warehouse(dir.resolve("local")),
            Map.of(),
            Set.of()));
    iceberg.put(
        "gcslake",
        new CatalogConfig(
            "gcslake",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("gcs")),
            GCS.root() + "/wh",
            GCS.fileIoProperties(),
            Set.of()));
    iceberg.put(
        "s3lake",
        new CatalogConfig(
            "s3lake",
            "jdbc",
            SqliteCatalogs.uri(dir.resolve("s3")),
            S3.warehouse("wh"),
            S3.clientProperties(),
            Set.of()));
    Map<String, List<String>> rowsBefore = new HashMap<>();
    Map<String, String> locations = new HashMap<>();
    for (CatalogConfig c : iceberg.values()) {
      Catalog catalog = Catalogs.open(c);
      try (Closeable closing = (Closeable) catalog) {
        Table t = Fleet.smallFiles(catalog, "raw", "events", 3);
        rowsBefore.put(c.name(), Rows.sortedStrings(t));
        locations.put(c.name(), t.location());
      }
    }
    Path localOrphan = Path.of(java.net.URI.create(
            locations.get("local").startsWith("file:")
                ? locations.get("local")
                : "file:" + locations.get("local")))
        .resolve("data/orphan-0.parquet");
    Files.createDirectories(localOrphan.getParent());
    Files.writeString(localOrphan, "x");
    Files.setLastModifiedTime(localOrphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    String gcsOrphan = locations.get("gcslake") + "/data/orphan-0.parquet";
    GCS.put(gcsOrphan.substring(GCS.root().length() + 1), new byte[] {1, 2, 3});
    String s3Orphan = locations.get("s3lake") + "/data/orphan-0.parquet";
    try (var io = S3.fileIO();
        var out = io.newOutputFile(s3Orphan).createOrOverwrite()) {
      out.write(new byte[] {1, 2, 3});
    }

    Path local = deltaTable(dir.resolve("delta/events"));
    try (Stream<Path> s = Files.walk(local)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        AZURE
            .blobs()
            .getBlobClient("wh/events/" + local.relativize(p).toString().replace('\\', '/'))
            .uploadFromFile(p.toString(), true);
      }
    }
    AZURE
        .blobs()
        .getBlobClient("wh/events/stray-0.parquet")
        .upload(com.azure.core.util.BinaryData.fromString("x"), true);
    String deltaLocation = "abfss://mixed@" + AzuriteServer.DFS_HOST + "/wh/events";
    CatalogConfig deltas = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        AZURE.fileIoProperties(),
        Set.of(),
        Map.of("raw.events", deltaLocation),
        List.of());
    List<String> deltaBefore = deltaRows(deltaLocation, deltas, dir);
    assertThat(deltaBefore).hasSize(30);
    // cloud modification times are the server's: the planted files must be older than the run's
    // zero/one-second guards
    Thread.sleep(2100);

    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          local:
            type: jdbc
            uri: %s
            warehouse: %s
          gcslake:
            type: jdbc
            uri: %s
            warehouse: %s
            properties:
              gcs.project-id: %s
              gcs.service.host: %s
              gcs.no-auth: "true"
          s3lake:
            type: jdbc
            uri: %s
            warehouse: %s
            properties:
              s3.endpoint: %s
              s3.path-style-access: "true"
              s3.access-key-id: %s
              s3.secret-access-key: ${env:S3_SECRET}
              client.region: %s
          deltas:
            type: delta
            tables:
              raw.events: %s
            properties:
              adls.connection-string.%s: %s
              adls.auth.shared-key.account.name: %s
              adls.auth.shared-key.account.key: ${env:AZURE_KEY}
        defaults:
          compact: {min-input-files: 2}
          expire: {older-than: 0s, retain-last: 1}
          remove-orphans: {older-than: 1s}
          vacuum: {retention: 1s}
        """.formatted(
            iceberg.get("local").uri(),
            iceberg.get("local").warehouse(),
            iceberg.get("gcslake").uri(),
            iceberg.get("gcslake").warehouse(),
            GcsEmulator.PROJECT,
            GCS.endpoint(),
            iceberg.get("s3lake").uri(),
            iceberg.get("s3lake").warehouse(),
            S3.endpoint(),
            S3Server.ACCESS_KEY,
            S3Server.REGION,
            deltaLocation,
            AzuriteServer.DFS_HOST,
            AZURE.endpoint(),
            AzuriteServer.ACCOUNT));

    CliRun r = CliRun.run(
        dir,
        Map.of("AZURE_KEY", AzuriteServer.KEY, "S3_SECRET", S3Server.SECRET_KEY),
        "maintain",
        "--yes",
        "--output",
        "json");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out() + r.err())
        .doesNotContain(AzuriteServer.KEY)
        .doesNotContain(S3Server.SECRET_KEY);
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("summary").get("done").asInt()).as(r.out()).isEqualTo(4);
    Map<String, List<String>> ops = new HashMap<>();
    for (JsonNode t : json.get("tables")) {
      List<String> done = new ArrayList<>();
      t.get("operations")
          .forEach(
              o -> done.add(o.get("operation").asText() + "=" + o.get("outcome").asText()));
      ops.put(t.get("catalog").asText(), done);
    }
    assertThat(ops.keySet()).containsExactlyInAnyOrder("local", "gcslake", "s3lake", "deltas");
    assertThat(ops.get("s3lake"))
        .as(r.out())
        .contains("compact=done", "expire=done", "remove-orphans=done");
    assertThat(ops.get("local"))
        .as(r.out())
        .contains("compact=done", "expire=done", "remove-orphans=done");
    assertThat(ops.get("gcslake"))
        .as(r.out())
        .contains("compact=done", "expire=done", "remove-orphans=done");
    assertThat(ops.get("deltas")).as(r.out()).contains("compact=done", "vacuum=done");

    // every table reads the same rows, every live file is there, every orphan is gone
    for (CatalogConfig c : iceberg.values()) {
      Catalog catalog = Catalogs.open(c);
      try (Closeable closing = (Closeable) catalog) {
        Table t = catalog.loadTable(TableIdentifier.of("raw", "events"));
        assertThat(Rows.sortedStrings(t)).as(c.name()).isEqualTo(rowsBefore.get(c.name()));
        assertThat(liveIcebergFiles(t)).as(c.name()).hasSize(1);
        if (c.name().equals("gcslake")) {
          assertThat(GCS.objects(t.location()))
              .containsAll(liveIcebergFiles(t))
              .doesNotContain(gcsOrphan);
        }
        if (c.name().equals("s3lake")) {
          assertThat(S3.objects(t.location()))
              .containsAll(liveIcebergFiles(t))
              .doesNotContain(s3Orphan);
        }
      }
    }
    assertThat(localOrphan).doesNotExist();
    assertThat(deltaRows(deltaLocation, deltas, dir)).isEqualTo(deltaBefore);
    Set<String> blobs = AZURE.objects(AZURE.root() + "/wh/events");
    assertThat(blobs)
        .noneMatch(b -> b.endsWith("/stray-0.parquet"))
        .anyMatch(b -> b.contains("/_delta_log/"));
  }
}
