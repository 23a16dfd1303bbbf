package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.demo.ShopDemo;
import dev.resurfacer.iceberg.testing.EveryOperation;
import dev.resurfacer.iceberg.testing.Rows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code maintain} with every Iceberg operation enabled on the demo's table, upgraded to v3 just before: one report, same rows. */
class DemoEveryOperationCliTest {
  @TempDir
  Path dir;

  @Test
  void everyOperationOnTheDemoIsOneReportAndTheRowsStay() throws Exception {
    assertThat(CliRun.run(dir, "demo", "--days", "2").exitCode()).isZero();
    Path demo = dir.resolve("resurfacer-demo");
    String[] catalogArgs = {
      "--catalog-name",
      "demo",
      "--catalog-uri",
      "jdbc:sqlite:" + demo.resolve("catalog.db"),
      "--warehouse",
      demo.resolve("warehouse").toString()
    };
    Files.writeString(dir.resolve("every.yml"), EveryOperation.POLICY);
    List<String> before = rows(demo);
    assertThat(before).isNotEmpty();
    assertThat(CliRun.run(
                dir,
                concat(
                    List.of("upgrade", "shop.orders", "--format-version", "3", "--yes"),
                    catalogArgs))
            .exitCode())
        .isZero();

    CliRun run = CliRun.run(
        dir,
        concat(
            List.of(
                "maintain",
                "--config",
                dir.resolve("every.yml").toString(),
                "--tables",
                "shop.orders",
                "--quiet",
                "--output",
                "json",
                "--yes"),
            catalogArgs));

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(run.out());
    assertThat(report.get("tables")).hasSize(1);
    List<String> operations = new ArrayList<>();
    report.get("tables").get(0).get("operations").forEach(o -> {
      operations.add(o.get("operation").asText());
      assertThat(o.get("outcome").asText()).as(o.toString()).isIn("done", "nothing_to_do");
    });
    assertThat(operations).containsExactlyElementsOf(EveryOperation.DESIGN_ORDER);
    assertThat(rows(demo)).isEqualTo(before);
  }

  private static List<String> rows(Path demo) throws Exception {
    Catalog catalog = Catalogs.open(CatalogSelection.embedded("demo", demo));
    try {
      Table table = catalog.loadTable(ShopDemo.ORDERS);
      return Rows.sortedStrings(table);
    } finally {
      ((AutoCloseable) catalog).close();
    }
  }

  private static String[] concat(List<String> args, String[] more) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }
}
