package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.demo.ShopDemo;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** After {@code demo maintain}, the metadata.json files describe calls stranded are explained, counted alike, with the verb that sweeps them. */
class DemoStrandedMetadataCliTest {
  @TempDir
  Path dir;

  @Test
  void theDemoSaysWhyStrandedMetadataRemainsAndWhatSweepsIt() throws Exception {
    assertThat(CliRun.run(dir, "demo", "reset").exitCode()).isZero();
    // a short metadata log, as a long-lived table has once it outgrew the default 100: every commit
    // of a day strands a file
    Catalog catalog =
        Catalogs.open(CatalogSelection.embedded("demo", dir.resolve("resurfacer-demo")));
    try {
      catalog
          .loadTable(ShopDemo.ORDERS)
          .updateProperties()
          .set(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2")
          .commit();
    } finally {
      ((AutoCloseable) catalog).close();
    }
    assertThat(CliRun.run(dir, "demo", "next-day").exitCode()).isZero();

    CliRun maintain = CliRun.run(dir, "demo", "maintain");
    assertThat(maintain.exitCode()).as(maintain.err()).isZero();
    Matcher m =
        Pattern.compile("stranded metadata: (\\d+) old metadata.json file").matcher(maintain.out());
    assertThat(m.find()).as(maintain.out()).isTrue();
    assertThat(maintain.out())
        .contains("before delete-after-commit was on")
        .contains("'resurfacer remove-orphans shop.orders --yes' sweeps them");

    CliRun describe = CliRun.run(
        dir,
        "describe",
        "shop.orders",
        "--output",
        "json",
        "--catalog-name",
        "demo",
        "--catalog-uri",
        "jdbc:sqlite:" + dir.resolve("resurfacer-demo/catalog.db"),
        "--warehouse",
        dir.resolve("resurfacer-demo/warehouse").toString());
    JsonNode health = new ObjectMapper().readTree(describe.out());
    int stranded = health.findValue("metadata_files_on_disk").asInt()
        - health.findValue("metadata_files").asInt();
    assertThat(stranded).isPositive();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(stranded);
  }
}
