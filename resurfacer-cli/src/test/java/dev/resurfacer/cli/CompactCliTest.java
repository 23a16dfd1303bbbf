package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactCliTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  /** Four small files in the embedded default catalog of {@code dir}. */
  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("resurfacer", dir.resolve("resurfacer-data"));
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", (long) f * 25 + i);
        r.setField("s", "v" + i);
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
  }

  private String metadataLocation() {
    Table t = catalog.loadTable(TableIdentifier.of("db", "t"));
    return ((HasTableOperations) t).operations().current().metadataFileLocation();
  }

  private long dataFilesOnDisk() throws Exception {
    try (Stream<Path> files = Files.walk(dir.resolve("resurfacer-data/warehouse/db/t/data"))) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void withoutYesCompactOnlyPreviews() throws Exception {
    String before = metadataLocation();
    long files = dataFilesOnDisk();
    CliRun r = CliRun.run(dir, "compact", "db.t", "--min-input-files", "2");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains("would rewrite 4 files")
        .contains("preview only: nothing was changed");
    assertThat(metadataLocation()).isEqualTo(before);
    assertThat(dataFilesOnDisk()).isEqualTo(files);

    CliRun plan = CliRun.run(dir, "plan", "db.t", "--output", "json");
    assertThat(plan.exitCode()).isZero();
    JsonNode json = new ObjectMapper().readTree(plan.out());
    assertThat(json.get("live_data_files").asLong()).isEqualTo(4);
    assertThat(json.get("groups").size()).isZero();
    assertThat(json.get("skipped_files").asLong()).isEqualTo(4);
    assertThat(metadataLocation()).isEqualTo(before);
  }

  @Test
  void withYesCompactCommitsAReplace() throws Exception {
    CliRun r = CliRun.run(
        dir, "compact", "db.t", "--min-input-files", "2", "--verify", "--yes", "--output", "json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("rewritten_files").asLong()).isEqualTo(4);
    assertThat(json.get("added_files").asLong()).isEqualTo(1);
    assertThat(json.get("rows").asLong()).isEqualTo(100);
    assertThat(json.get("groups").get(0).get("status").asText()).isEqualTo("COMMITTED");
    assertThat(json.get("verification").asText()).isEqualTo("content");
    Table t = catalog.loadTable(TableIdentifier.of("db", "t"));
    assertThat(t.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(t.currentSnapshot().snapshotId())
        .isEqualTo(json.get("snapshot_ids").get(0).asLong());
  }

  @Test
  void verifyCountIsTheUsersChoiceAndTheReportSaysSo() {
    CliRun r =
        CliRun.run(dir, "compact", "db.t", "--min-input-files", "2", "--verify=count", "--yes");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("verified: count");
    assertThat(
            catalog.loadTable(TableIdentifier.of("db", "t")).currentSnapshot().operation())
        .isEqualTo("replace");
  }

  @Test
  void zOrderAndSortStrategiesFromTheCommandLine() throws Exception {
    CliRun plan = CliRun.run(
        dir, "plan", "db.t", "--strategy", "zorder", "--columns", "id,s", "--rewrite-all");
    assertThat(plan.exitCode()).as(plan.err()).isZero();
    assertThat(plan.out()).contains("z-order id, s").contains("would rewrite 4 files");
    CliRun sort = CliRun.run(
        dir,
        "compact",
        "db.t",
        "--strategy",
        "sort",
        "--sort-by",
        "s DESC, id",
        "--rewrite-all",
        "--yes");
    assertThat(sort.exitCode()).as(sort.err()).isZero();
    assertThat(
            catalog.loadTable(TableIdentifier.of("db", "t")).currentSnapshot().operation())
        .isEqualTo("replace");
  }

  @Test
  void badOptionsAreOneLineUsageErrorsAndChangeNothing() {
    String before = metadataLocation();
    String[][] cases = {
      {"compact", "db.t", "--target-file-size", "0", "--yes"},
      {"compact", "db.t", "--where", "nosuch = 1", "--yes"},
      {"compact", "db.t", "--where", "id >>= 3", "--yes"},
      {"compact", "db.t", "--runner", "spark", "--yes"},
      {"compact", "db.t", "--min-input-files", "0", "--yes"},
      {"compact", "db.t", "--option", "no-such-option=1", "--yes"},
      {"compact", "db.t", "--memory", "1MB", "--yes"},
      {"compact", "db.t", "--strategy", "hilbert", "--yes"},
      {"compact", "db.t", "--strategy", "zorder", "--yes"},
      {"compact", "db.t", "--strategy", "zorder", "--columns", "id,nope", "--yes"},
      {"compact", "db.t", "--strategy", "sort", "--yes"},
      {"compact", "db.t", "--strategy", "sort", "--sort-by", "id SIDEWAYS", "--yes"},
      {"compact", "db.t", "--sort-by", "id", "--yes"},
      {"compact", "db.t", "--verify=sometimes", "--yes"},
    };
    for (String[] args : cases) {
      CliRun r = CliRun.run(dir, args);
      assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(2);
      assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    }
    assertThat(metadataLocation()).isEqualTo(before);
  }
}
