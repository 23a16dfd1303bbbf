package dev.resurfacer.iceberg.orphans;

import static dev.resurfacer.iceberg.orphans.OrphanRemovalTest.TEN_DAYS_AGO;
import static dev.resurfacer.iceberg.orphans.OrphanRemovalTest.id;
import static dev.resurfacer.iceberg.orphans.OrphanRemovalTest.plant;
import static dev.resurfacer.iceberg.orphans.OrphanRemovalTest.rows;
import static dev.resurfacer.iceberg.orphans.OrphanRemovalTest.tableDir;
import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another engine's orphan candidates (Spark's dry run) pass through every fence: only candidates our
 * removal also finds unreferenced are deleted, whatever spelling the engine used; a live file it
 * proposes is kept, and an orphan it did not propose is left for another run.
 */
class OnlyAmongCandidatesTest {
  @TempDir
  Path dir;

  @Test
  void onlyCandidatesOurFencesAgreeOnAreDeleted() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(id("t"), OrphanRemovalTest.SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(OrphanRemovalTest.SCHEMA)
            .identity("category")
            .build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    DataFile live = TableWrites.writeData(table, rows(0, 10, "a")).get(0);
    table.newAppend().appendFile(live).commit();
    List<String> before = Rows.sortedStrings(table);
    Path proposed =
        plant(tableDir(table).resolve("data/category=a/proposed.parquet"), TEN_DAYS_AGO);
    Path notProposed =
        plant(tableDir(table).resolve("data/category=a/not-proposed.parquet"), TEN_DAYS_AGO);
    Path livePath = Path.of(live.location().replaceFirst("^file:", ""));
    assertThat(livePath.toFile().setLastModified(TEN_DAYS_AGO)).isTrue();

    List<String> candidates = List.of(
        "file:" + proposed,
        live.location(),
        "file://" + livePath,
        dir.resolve("elsewhere.parquet").toString());
    OrphanReport preview =
        OrphanRemoval.of(catalog, id("t"), table).onlyAmong(candidates).plan();
    assertThat(preview.census().orphans().files()).isEqualTo(1);
    OrphanReport done =
        OrphanRemoval.of(catalog, id("t"), table).onlyAmong(candidates).execute();

    assertThat(done.removed().deleted().files()).isEqualTo(1);
    assertThat(proposed).doesNotExist();
    assertThat(notProposed).exists();
    assertThat(livePath).exists();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    catalog.close();
  }
}
