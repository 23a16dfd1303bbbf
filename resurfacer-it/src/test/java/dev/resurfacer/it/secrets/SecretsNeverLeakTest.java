package dev.resurfacer.it.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.it.child.ChildCli;
import dev.resurfacer.it.report.Counts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials given by reference (${env:...}, ${file:...}) are resolved but never written anywhere:
 * every verb is run as a real child process with --verbose, succeeding and failing, and its stdout,
 * stderr, JSON and HTML reports, metrics file and every other file it left are scanned.
 */
class SecretsNeverLeakTest {
  static final String ENV_SECRET = "pw-Zq8xEnvSecret-4411";
  static final String FILE_SECRET = "tok-Kd2FileSecret-9071";
  /** Given literally in resurfacer.yml under a credential's name (engines.spark.conf.*). */
  static final String LITERAL_SECRET = "s3k-Lt5LiteralSecret-2290";

  @TempDir
  Path dir;

  static long currentSnapshot(Path lake) {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", lake);
    try {
      return catalog
          .loadTable(org.apache.iceberg.catalog.TableIdentifier.of("shop", "orders"))
          .currentSnapshot()
          .snapshotId();
    } finally {
      catalog.close();
    }
  }

  @Test
  void noOutputChannelEverCarriesASecretValue() throws Exception {
    Path lake = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", lake);
    Table table = Orders.create(catalog, "shop", "orders", 2);
    for (int i = 0; i < 3; i++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, Orders.rows(i * 10L, 10, 0)).get(0))
          .commit();
    }
    catalog.close();
    Path secretFile = dir.resolve("secrets").resolve("token");
    Files.createDirectories(secretFile.getParent());
    Files.writeString(secretFile, FILE_SECRET + "\n");
    Path work = dir.resolve("work");
    Files.createDirectories(work);
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Files.writeString(work.resolve("resurfacer.yml"), """
        catalogs:
          lake:
            type: jdbc
            uri: %s?password=${env:LAKE_PASSWORD}
            warehouse: %s
            properties:
              jdbc.user: ${file:%s}
              jdbc.password: ${env:LAKE_PASSWORD}
        default-catalog: lake
        engines:
          spark:
            remote: sc://127.0.0.1:%d/;token=${env:LAKE_PASSWORD}
            conf:
              spark.hadoop.fs.s3a.secret.key: %s
              spark.hadoop.fs.s3a.access.key: ${file:%s}
              spark.resurfacer.auth: ${env:LAKE_PASSWORD}
        """.formatted(
            SqliteCatalogs.uri(lake),
            SqliteCatalogs.warehouse(lake),
            secretFile,
            closed,
            LITERAL_SECRET,
            secretFile));
    ChildCli cli = new ChildCli(work, Map.of("LAKE_PASSWORD", ENV_SECRET));

    List<List<String>> runs = List.of(
        List.of(
            "maintain",
            "--verbose",
            "--report",
            "report.html",
            "--metrics-file",
            "metrics.prom",
            "--output",
            "json"),
        List.of(
            "maintain",
            "--yes",
            "--verbose",
            "--report",
            "report2.html",
            "--metrics-file",
            "metrics2.prom"),
        List.of("describe", "shop.orders", "--verbose", "--output", "json"),
        List.of("describe", "shop.missing", "--verbose"),
        List.of("doctor", "--verbose"),
        List.of("doctor", "--verbose", "--output", "json"),
        List.of("compact", "shop.orders", "--verbose", "--target-file-size", "0"),
        List.of("expire", "shop.orders", "--verbose", "--output", "json"),
        List.of("policy", "shop.orders", "--output", "json"),
        List.of("engines", "--output", "json"),
        // the Spark engine's options, the cluster unreachable: one line, exit 2, nothing changed
        List.of("maintain", "--engine", "spark", "--yes", "--verbose", "--report", "report3.html"),
        List.of("compact", "shop.orders", "--engine", "spark", "--yes", "--verbose"));
    int scanned = 0;
    for (List<String> args : runs) {
      long before = currentSnapshot(lake);
      ChildCli.Result r = cli.run(args.toArray(String[]::new));
      for (String channel : List.of(r.out(), r.err())) {
        assertThat(channel)
            .as("%s output", args)
            .doesNotContain(ENV_SECRET)
            .doesNotContain(FILE_SECRET)
            .doesNotContain(LITERAL_SECRET);
        scanned++;
      }
      if (args.contains("spark")) {
        assertThat(r.exitCode()).as("%s%n%s", args, r.err()).isEqualTo(2);
        assertThat(r.err().lines().filter(l -> l.startsWith("error: ")).toList())
            .as("%s", args)
            .containsExactly("error: cannot reach Spark Connect at sc://127.0.0.1:" + closed
                + ": Connection refused");
        assertThat(currentSnapshot(lake)).as("%s changed nothing", args).isEqualTo(before);
      }
    }
    assertThat(Files.readString(work.resolve("report.html"))).contains("shop.orders");
    try (Stream<Path> files = Files.walk(work)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (f.getFileName().toString().equals("resurfacer.yml")) {
          continue;
        }
        String content =
            new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(content).as("file %s", f).doesNotContain(ENV_SECRET).doesNotContain(FILE_SECRET);
        scanned++;
      }
    }
    Counts.record("secrets: " + runs.size() + " child runs, " + scanned
        + " channels and files scanned, no secret value found");
  }
}
