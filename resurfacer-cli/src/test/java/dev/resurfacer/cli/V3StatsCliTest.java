package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The v3 and statistics verbs through the real CLI: preview changes nothing, --yes acts, reads stay the same. */
class V3StatsCliTest {
  @TempDir
  Path dir;

  Path catDir;
  JdbcCatalog catalog;
  Table table;
  List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    catDir = dir.resolve("lake");
    catalog = SqliteCatalogs.create("lake", catDir);
    table = Orders.create(catalog, "shop", "orders", 2);
    for (int i = 0; i < 4; i++) {
      DataFile f = TableWrites.writeData(table, Orders.rows(i * 10L, 10, i % 2)).get(0);
      table.newAppend().appendFile(f).commit();
      files.add(f);
    }
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            table.spec(),
            files.get(0).partition(),
            List.of(
                new Position(files.get(0).location(), 3),
                new Position(files.get(2).location(), 4))))
        .commit();
    Record gone = GenericRecord.create(Orders.SCHEMA.select("id"));
    gone.setField("id", 15L);
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table,
            table.spec(),
            files.get(1).partition(),
            Orders.SCHEMA.select("id"),
            List.of(gone)))
        .commit();
    table.refresh();
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  @Test
  void upgradeThenRewritePositionDeletesIntoDeletionVectors() {
    List<String> rows = Rows.sortedStrings(table);
    State before = state();
    CliRun preview = run("upgrade", "shop.orders", "--format-version", "3");
    assertThat(preview.exitCode()).as(preview.err()).isZero();
    assertThat(preview.out()).contains("format v2 -> v3").contains("preview only");
    assertThat(state()).isEqualTo(before);

    assertThat(run("upgrade", "shop.orders", "--format-version", "1").exitCode())
        .isEqualTo(Main.USAGE);
    assertThat(run("upgrade", "shop.orders").exitCode()).isEqualTo(Main.USAGE);
    assertThat(run("upgrade", "shop.orders", "--format-version", "3", "--yes").out())
        .contains("upgraded lake.shop.orders to format v3");
    assertThat(formatVersion()).isEqualTo(3);
    assertThat(run("upgrade", "shop.orders", "--format-version", "2", "--yes").exitCode())
        .isEqualTo(Main.USAGE);

    State upgraded = state();
    CliRun rpdPreview = run("rewrite-position-deletes", "shop.orders");
    assertThat(rpdPreview.out())
        .contains(
            "1 position-delete files -> 2 deletion vectors for 2 data files, 2 deleted positions")
        .contains("preview only");
    assertThat(state()).isEqualTo(upgraded);
    CliRun rpd = run("rewrite-position-deletes", "shop.orders", "--yes");
    assertThat(rpd.exitCode()).as(rpd.err()).isZero();
    assertThat(rpd.out()).contains("committed snapshot");
    assertThat(deleteFormats())
        .containsExactlyInAnyOrder(FileFormat.PUFFIN, FileFormat.PUFFIN, FileFormat.PARQUET);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);

    CliRun convertPreview = run("convert-equality-deletes", "shop.orders");
    assertThat(convertPreview.out())
        .contains(
            "1 equality-delete files resolved against 1 data files: 1 deleted rows -> deletion vectors")
        .contains("preview only");
    assertThat(run("convert-equality-deletes", "shop.orders", "--yes").exitCode())
        .isZero();
    assertThat(deleteFormats()).containsOnly(FileFormat.PUFFIN);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
  }

  @Test
  void computeStatsAndPartitionStatsShowInDescribe() {
    State before = state();
    CliRun preview = run("compute-stats", "shop.orders", "--columns", "id,day");
    assertThat(preview.out())
        .contains("would estimate distinct values of id, day")
        .contains("preview only");
    assertThat(state()).isEqualTo(before);
    assertThat(run("compute-stats", "shop.orders", "--columns", "nope").exitCode())
        .isEqualTo(Main.USAGE);

    CliRun stats = run("compute-stats", "shop.orders", "--yes");
    assertThat(stats.exitCode()).as(stats.err()).isZero();
    // 40 rows, two deleted by position and one by equality: 37 distinct ids, 2 days
    assertThat(stats.out())
        .containsPattern("id\\s+ndv 37")
        .containsPattern("day\\s+ndv 2")
        .contains("statistics for snapshot");
    CliRun partitions = run("compute-partition-stats", "shop.orders", "--yes");
    assertThat(partitions.exitCode()).as(partitions.err()).isZero();
    assertThat(run("compute-partition-stats", "shop.orders", "--yes").out()).contains("already in");

    CliRun describe = run("describe", "shop.orders");
    table.refresh();
    assertThat(describe.out())
        .contains("statistics         2 files")
        .contains("table     snapshot " + table.currentSnapshot().snapshotId() + " (current)")
        .contains("partition snapshot " + table.currentSnapshot().snapshotId() + " (current)")
        .contains("apache-datasketches-theta-v1 [1] {ndv=37}");
  }

  int formatVersion() {
    table.refresh();
    return ((HasTableOperations) table).operations().current().formatVersion();
  }

  /** The format of every delete file the scan attaches to a live data file, once per attachment. */
  List<FileFormat> deleteFormats() {
    table.refresh();
    List<FileFormat> out = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        t.deletes().stream()
            .filter(d -> d.content() != FileContent.DATA)
            .forEach(d -> out.add(d.format()));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  CliRun run(String... args) {
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

  /** What "nothing changed" means: same metadata file, same current snapshot, same files on disk. */
  record State(String metadata, long snapshotId, Set<Path> files) {}

  State state() {
    Table t = catalog.loadTable(TableIdentifier.of("shop", "orders"));
    return new State(
        ((HasTableOperations) t).operations().current().metadataFileLocation(),
        t.currentSnapshot().snapshotId(),
        Disk.files(t));
  }
}
