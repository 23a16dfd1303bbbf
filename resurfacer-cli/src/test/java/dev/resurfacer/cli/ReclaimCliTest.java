package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReclaimCliTest {
  @TempDir
  Path dir;

  Path catDir;
  JdbcCatalog catalog;
  Table table;

  @BeforeEach
  void setUp() {
    catDir = dir.resolve("lake");
    catalog = SqliteCatalogs.create("lake", catDir);
    table = Orders.create(catalog, "shop", "orders", 2);
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  @Test
  void expirePreviewChangesNothingAndYesActs() throws Exception {
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      files.add(append(Orders.rows(i * 10L, 10, i % 2)));
    }
    table
        .newRewrite()
        .deleteFile(files.get(0))
        .addFile(TableWrites.writeData(table, Orders.rows(0, 10, 0)).get(0))
        .commit();
    Thread.sleep(5);
    State before = state();

    CliRun preview = run("expire", "shop.orders", "--older-than", "0s", "--retain-last", "1");
    assertThat(preview.err()).isEmpty();
    assertThat(preview.exitCode()).isZero();
    assertThat(preview.out())
        .contains("would expire 5 snapshot(s)")
        .contains(files.get(0).location())
        .contains("preview only: nothing was changed");
    assertThat(state()).isEqualTo(before);

    CliRun json = run(
        "expire", "shop.orders", "--older-than", "0s", "--retain-last", "1", "--output", "json");
    JsonNode planned = new ObjectMapper().readTree(json.out());
    assertThat(planned.get("committed").asBoolean()).isFalse();
    assertThat(planned.get("snapshots")).hasSize(5);
    assertThat(planned.get("by_category").get("manifest_list").get("files").asInt())
        .isEqualTo(5);
    assertThat(planned.get("by_category").get("data").get("files").asInt()).isEqualTo(1);
    assertThat(state()).isEqualTo(before);

    CliRun act = run(
        "expire",
        "shop.orders",
        "--older-than",
        "0s",
        "--retain-last",
        "1",
        "--yes",
        "--output",
        "json");
    assertThat(act.exitCode()).isZero();
    JsonNode done = new ObjectMapper().readTree(act.out());
    assertThat(done.get("committed").asBoolean()).isTrue();
    assertThat(done.get("files").asLong()).isEqualTo(planned.get("files").asLong());
    assertThat(done.get("bytes").asLong()).isEqualTo(planned.get("bytes").asLong());
    assertThat(Disk.exists(files.get(0).location())).isFalse();
    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(Rows.sortedStrings(table)).hasSize(50);
  }

  @Test
  void badExpireInputIsExitTwoAndChangesNothing() throws Exception {
    append(Orders.rows(0, 10, 0));
    append(Orders.rows(10, 10, 0));
    Thread.sleep(5);
    State before = state();
    for (String[] args : List.of(
        new String[] {"--retain-last", "0"},
        new String[] {"--older-than=-5d"},
        new String[] {"--older-than", "five days"},
        new String[] {"--expire-snapshot-id", "12345", "--yes"})) {
      List<String> all = new ArrayList<>(List.of("expire", "shop.orders"));
      all.addAll(List.of(args));
      CliRun r = run(all.toArray(String[]::new));
      assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.err().lines().count()).isEqualTo(1);
      assertThat(r.err()).startsWith("error: ");
      assertThat(state()).isEqualTo(before);
    }
  }

  @Test
  void expireRefusesToDropAnAgedTagWithoutExpireRefs() throws Exception {
    append(Orders.rows(0, 10, 0));
    table
        .manageSnapshots()
        .createTag("q1", table.currentSnapshot().snapshotId())
        .setMaxRefAgeMs("q1", 1)
        .commit();
    append(Orders.rows(10, 10, 0));
    Thread.sleep(5);
    State before = state();
    CliRun refused = run("expire", "shop.orders", "--older-than", "0s", "--yes");
    assertThat(refused.exitCode()).isEqualTo(3);
    assertThat(refused.err().strip()).startsWith("error: refused: expiry would drop q1");
    assertThat(state()).isEqualTo(before);

    CliRun act = run("expire", "shop.orders", "--older-than", "0s", "--yes", "--expire-refs");
    assertThat(act.exitCode()).isZero();
    assertThat(act.out()).contains("dropped refs: q1");
  }

  @Test
  void rewriteManifestsPreviewsThenActs() throws Exception {
    for (int i = 0; i < 12; i++) {
      append(Orders.rows(i * 10L, 5, i % 3));
    }
    State before = state();
    CliRun preview = run("rewrite-manifests", "shop.orders");
    assertThat(preview.exitCode()).isZero();
    assertThat(preview.out())
        .contains("12 data manifest(s)")
        .contains("would rewrite into about 3 data manifest(s)");
    assertThat(state()).isEqualTo(before);

    CliRun act = run("rewrite-manifests", "shop.orders", "--yes", "--output", "json");
    assertThat(act.exitCode()).isZero();
    JsonNode done = new ObjectMapper().readTree(act.out());
    assertThat(done.get("committed").asBoolean()).isTrue();
    assertThat(done.get("data_manifests_after").asInt()).isEqualTo(3);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId())
        .isEqualTo(done.get("snapshot_id").asLong());
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(3);
  }

  @Test
  void removeDanglingDeletesPreviewsThenActs() throws Exception {
    DataFile day0 = append(Orders.rows(0, 10, 0));
    append(Orders.rows(100, 10, 1));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            Orders.SPEC,
            day0.partition(),
            List.of(new TableWrites.Position(day0.location(), 0))))
        .commit();
    long readFrom = table.currentSnapshot().snapshotId();
    List<Record> live = Rows.read(table).stream()
        .filter(r -> r.getField("day").equals(Orders.DAY0))
        .toList();
    table
        .newRewrite()
        .validateFromSnapshot(readFrom)
        .deleteFile(day0)
        .addFile(TableWrites.writeData(table, live).get(0))
        .commit();
    List<String> rows = Rows.sortedStrings(table);
    State before = state();

    CliRun preview = run("remove-dangling-deletes", "shop.orders");
    assertThat(preview.exitCode()).isZero();
    assertThat(preview.out()).contains("would remove 1 of 1 delete file(s)").contains("position");
    assertThat(state()).isEqualTo(before);

    CliRun act = run("remove-dangling-deletes", "shop.orders", "--yes", "--output", "json");
    assertThat(act.exitCode()).isZero();
    JsonNode done = new ObjectMapper().readTree(act.out());
    assertThat(done.get("committed").asBoolean()).isTrue();
    assertThat(done.get("dangling").get(0).get("kind").asText()).isEqualTo("position");
    table.refresh();
    assertThat(table.currentSnapshot().deleteManifests(table.io()))
        .allMatch(m -> m.addedFilesCount() + m.existingFilesCount() == 0);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
  }

  private DataFile append(List<Record> rows) {
    DataFile f = TableWrites.writeData(table, rows).get(0);
    table.newAppend().appendFile(f).commit();
    return f;
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

  /** What "nothing changed" means: same metadata file, same current snapshot, same files on disk. */
  private record State(String metadata, long snapshotId, Set<Path> files) {}

  private State state() {
    Table t = catalog.loadTable(TableIdentifier.of("shop", "orders"));
    return new State(
        ((HasTableOperations) t).operations().current().metadataFileLocation(),
        t.currentSnapshot().snapshotId(),
        Disk.files(t));
  }
}
