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

  @TempDir Path dir;

  @Test
  void noOutputChannelEverCarriesASecretValue() throws Exception {
    Path lake = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", lake);
    Table table = Orders.create(catalog, "shop", "orders", 2);
    for (int i = 0; i < 3; i++) {
      table.newAppend().appendFile(TableWrites.writeData(table, Orders.rows(i * 10L, 10, 0)).get(0)).commit();
    }
    catalog.close();
    Path secretFile = dir.resolve("secrets").resolve("token");
    Files.createDirectories(secretFile.getParent());
    Files.writeString(secretFile, FILE_SECRET + "\n");
    Path work = dir.resolve("work");
    Files.createDirectories(work);
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
        """.formatted(SqliteCatalogs.uri(lake), SqliteCatalogs.warehouse(lake), secretFile));
    ChildCli cli = new ChildCli(work, Map.of("LAKE_PASSWORD", ENV_SECRET));

    List<List<String>> runs = List.of(
        List.of("maintain", "--verbose", "--report", "report.html", "--metrics-file", "metrics.prom", "--output", "json"),
        List.of("maintain", "--yes", "--verbose", "--report", "report2.html", "--metrics-file", "metrics2.prom"),
        List.of("describe", "shop.orders", "--verbose", "--output", "json"),
        List.of("describe", "shop.missing", "--verbose"),
        List.of("doctor", "--verbose"),
        List.of("doctor", "--verbose", "--output", "json"),
        List.of("compact", "shop.orders", "--verbose", "--target-file-size", "0"),
        List.of("expire", "shop.orders", "--verbose", "--output", "json"),
        List.of("policy", "shop.orders", "--output", "json"));
    int scanned = 0;
    for (List<String> args : runs) {
      ChildCli.Result r = cli.run(args.toArray(String[]::new));
      for (String channel : List.of(r.out(), r.err())) {
        assertThat(channel).as("%s output", args).doesNotContain(ENV_SECRET).doesNotContain(FILE_SECRET);
        scanned++;
      }
    }
    assertThat(Files.readString(work.resolve("report.html"))).contains("shop.orders");
    try (Stream<Path> files = Files.walk(work)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (f.getFileName().toString().equals("resurfacer.yml")) {
          continue;
        }
        String content = new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(content).as("file %s", f).doesNotContain(ENV_SECRET).doesNotContain(FILE_SECRET);
        scanned++;
      }
    }
    Counts.record("secrets: " + runs.size() + " child runs, " + scanned + " channels and files scanned, no secret value found");
  }
}
