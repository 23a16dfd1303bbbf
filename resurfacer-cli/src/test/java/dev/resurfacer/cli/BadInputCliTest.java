package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input of every kind is a one-line error with exit 2 (usage) or 3 (refused), and nothing
 * changes: the table's metadata location and the files on storage are exactly as before.
 */
class BadInputCliTest {
  @TempDir
  Path dir;

  Path catDir;
  String metadataBefore;
  Set<Path> filesBefore;
  Table table;

  @BeforeEach
  void setUp() {
    catDir = dir.resolve("lake");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    table = Orders.create(catalog, "shop", "orders", 2);
    for (int i = 0; i < 6; i++) {
      table
          .newAppend()
          .appendFile(
              TableWrites.writeData(table, Orders.rows(i * 10L, 10, i % 2)).get(0))
          .commit();
    }
    catalog.close();
    snapshotState();
  }

  private void snapshotState() {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    table = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("shop", "orders"));
    metadataBefore = TableState.metadataLocation(table);
    filesBefore = Disk.files(table);
    catalog.close();
  }

  private CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(
        "--catalog-name",
        "lake",
        "--catalog-uri",
        SqliteCatalogs.uri(catDir),
        "--warehouse",
        SqliteCatalogs.warehouse(catDir)));
    return CliRun.run(dir, all.toArray(String[]::new));
  }

  private void oneLineErrorAndNothingChanged(CliRun r, int exit, String says) {
    assertThat(r.exitCode()).as(r.err()).isEqualTo(exit);
    assertThat(r.err().lines()).as("one line on stderr").hasSize(1);
    assertThat(r.err()).startsWith("error: ").contains(says);
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    Table t = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("shop", "orders"));
    assertThat(TableState.metadataLocation(t)).isEqualTo(metadataBefore);
    assertThat(Disk.files(t)).isEqualTo(filesBefore);
    catalog.close();
  }

  @Test
  void malformedYamlIsAUsageError() throws Exception {
    Files.writeString(dir.resolve("bad.yml"), "catalogs:\n  lake: [type: jdbc\n   uri: x\n");
    oneLineErrorAndNothingChanged(
        CliRun.run(dir, "maintain", "--yes", "--config", dir.resolve("bad.yml").toString()),
        2,
        "bad.yml");
  }

  @Test
  void aYamlKeyWithAWrongTypeIsAUsageError() throws Exception {
    Files.writeString(dir.resolve("typo.yml"), "defaults:\n  expire:\n    retain-last: many\n");
    oneLineErrorAndNothingChanged(
        CliRun.run(dir, "maintain", "--yes", "--config", dir.resolve("typo.yml").toString()),
        2,
        "retain-last");
  }

  @Test
  void unknownFlagsAreUsageErrors() {
    oneLineErrorAndNothingChanged(
        run("compact", "shop.orders", "--yes", "--frobnicate"), 2, "--frobnicate");
    oneLineErrorAndNothingChanged(
        run("expire", "shop.orders", "--yes", "--retain-last", "lots"), 2, "lots");
  }

  @Test
  void anUnknownTableIsAUsageError() {
    oneLineErrorAndNothingChanged(run("compact", "shop.nope", "--yes"), 2, "shop.nope");
    oneLineErrorAndNothingChanged(run("expire", "nowhere.nope", "--yes"), 2, "nowhere.nope");
  }

  @Test
  void absurdOptionsAreUsageErrors() {
    oneLineErrorAndNothingChanged(
        run("compact", "shop.orders", "--yes", "--target-file-size", "0"), 2, "target");
    oneLineErrorAndNothingChanged(
        run("compact", "shop.orders", "--yes", "--min-input-files", "0"), 2, "min-input-files");
    oneLineErrorAndNothingChanged(
        run("expire", "shop.orders", "--yes", "--older-than", "-5d"), 2, "-5d");
    oneLineErrorAndNothingChanged(
        run("remove-orphans", "shop.orders", "--yes", "--older-than", "-1d"), 2, "-1d");
    oneLineErrorAndNothingChanged(
        run("condense", "shop.orders", "--yes", "--older-than", "-1d"), 2, "-1d");
    oneLineErrorAndNothingChanged(run("maintain", "--yes", "--parallel", "0"), 2, "--parallel");
  }

  @Test
  void aManifestEntryThatClimbsOutOfTheTableLocationIsNeverDeleted() throws Exception {
    Path victim = dir.resolve("precious.parquet");
    DataFile real =
        table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    Files.copy(Disk.path(real.location()), victim);
    victim
        .toFile()
        .setLastModified(System.currentTimeMillis() - Duration.ofDays(10).toMillis());
    String traversal = table.location() + "/data/../../../../../precious.parquet";
    assertThat(Path.of(traversal).normalize()).isEqualTo(victim);
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    Table t = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("shop", "orders"));
    t.newAppend()
        .appendFile(DataFiles.builder(t.spec()).copy(real).withPath(traversal).build())
        .commit();
    catalog.close();
    snapshotState();

    CliRun orphans = run("remove-orphans", "shop.orders", "--yes", "--older-than", "0s");
    assertThat(orphans.exitCode()).as(orphans.err()).isIn(0, 3);
    assertThat(victim).exists();
    CliRun expire =
        run("expire", "shop.orders", "--yes", "--older-than", "0s", "--retain-last", "1");
    assertThat(expire.exitCode()).as(expire.err()).isIn(0, 3);
    assertThat(victim).as("a file the current snapshot reads").exists();
  }
}
