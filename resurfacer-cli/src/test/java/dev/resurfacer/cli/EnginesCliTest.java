package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnginesCliTest {
  @TempDir
  Path dir;

  @Test
  void enginesListsEveryDeclarationAsTextAndJson() {
    CliRun text = CliRun.run(dir, "engines");
    assertThat(text.exitCode()).isZero();
    assertThat(text.out())
        .startsWith("ENGINE")
        .containsPattern("local +iceberg +compact +works")
        .containsPattern("local +delta +vacuum +works");
    CliRun json = CliRun.run(dir, "engines", "--output", "json");
    assertThat(json.out())
        .contains("\"engine\" : \"local\"")
        .contains("\"operation\" : \"remove-orphans\"");
  }

  @Test
  void anUnknownEngineFromTheFlagOrThePolicyIsOneLineExitTwoAndCreatesNothing() throws Exception {
    for (String verb : new String[] {
      "compact", "expire", "remove-orphans", "rewrite-manifests", "remove-dangling-deletes"
    }) {
      CliRun r = CliRun.run(dir, verb, "shop.orders", "--engine", "flink", "--yes");
      assertThat(r.exitCode()).as(verb).isEqualTo(2);
      assertThat(r.err().strip())
          .as(verb)
          .startsWith("error: unknown engine 'flink' (available: local")
          .doesNotContain("\n");
    }
    CliRun maintain = CliRun.run(dir, "maintain", "--engine", "flink", "--yes");
    assertThat(maintain.exitCode()).isEqualTo(2);
    assertThat(dir.resolve("resurfacer-data")).doesNotExist();

    Files.writeString(dir.resolve("resurfacer.yml"), "defaults:\n  engine: flink\n");
    CliRun byPolicy = CliRun.run(dir, "compact", "shop.orders");
    assertThat(byPolicy.exitCode()).isEqualTo(2);
    assertThat(byPolicy.err()).startsWith("error: unknown engine 'flink'");
  }

  /**
   * Spark's rewrite_manifests and Trino's optimize_manifests take no clustering fields: a sort-by, from
   * the verb's flag or from the policy under maintain, is one line naming the setting and the engine,
   * exit 2, before the engine is reached (its endpoint here has nothing listening) and with the table unchanged.
   */
  @Test
  void aSettingTheEngineHasNoArgumentForIsRefusedBeforeConnectingWhetherFlagOrPolicy()
      throws Exception {
    Path lake = dir.resolve("lake");
    String metadata;
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Table table = Fleet.smallFiles(catalog, "db", "orders", 3);
      metadata = ((HasTableOperations) table).operations().current().metadataFileLocation();
    }
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    String engines = """
        engines:
          spark:
            remote: sc://127.0.0.1:%d
          trino:
            url: jdbc:trino://127.0.0.1:%d
        """.formatted(closed, closed);
    for (String engine : new String[] {"spark", "trino"}) {
      Files.writeString(dir.resolve("resurfacer.yml"), MaintainCliTest.catalogYml(lake) + engines);
      CliRun verb = CliRun.run(
          dir, "rewrite-manifests", "db.orders", "--sort-by", "day", "--engine", engine, "--yes");
      assertThat(verb.exitCode()).as(engine).isEqualTo(2);
      assertThat(verb.err().strip())
          .as(engine)
          .startsWith("error: engine " + engine + " does not take rewrite-manifests sort-by"
              + " (--sort-by, policy rewrite-manifests.sort-by) on iceberg tables: ")
          .endsWith("; run it with --engine local")
          .doesNotContain("\n")
          .doesNotContain("reach");

      Files.writeString(
          dir.resolve("resurfacer.yml"),
          MaintainCliTest.catalogYml(lake) + engines + """
          defaults:
            engine: %s
            rewrite-manifests:
              sort-by: [day]
          """.formatted(engine));
      CliRun maintain = CliRun.run(dir, "maintain", "--yes");
      assertThat(maintain.exitCode()).as(engine).isEqualTo(2);
      assertThat(maintain.err().strip())
          .as(engine)
          .startsWith(
              "error: db.orders: engine " + engine + " does not take rewrite-manifests sort-by")
          .doesNotContain("\n");
      assertThat(maintain.out()).as(engine).isEmpty();
    }
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Table table =
          catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "orders"));
      assertThat(((HasTableOperations) table).operations().current().metadataFileLocation())
          .isEqualTo(metadata);
    }
  }
}
