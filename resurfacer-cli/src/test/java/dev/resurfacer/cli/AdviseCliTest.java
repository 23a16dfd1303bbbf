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
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code advise} through the CLI, fed report lines in the documented format the way a producer other
 * than the collector (Trino, a script) would write them.
 */
class AdviseCliTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "s", Types.StringType.get()));

  @TempDir
  Path dir;

  Path reports;

  /** Eight files of random ids in the embedded default catalog; 200 recorded scans each asking for one id. */
  @BeforeEach
  void setUp() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("resurfacer", dir.resolve("resurfacer-data"));
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog.createTable(
        TableIdentifier.of("db", "t"),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "4096"));
    SplittableRandom rnd = new SplittableRandom(1);
    for (int f = 0; f < 8; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", (long) rnd.nextInt(100_000));
        r.setField("s", "v" + rnd.nextInt(1 << 20));
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
    reports = dir.resolve("reports");
    Files.createDirectories(reports);
    StringBuilder lines = new StringBuilder();
    for (int q = 0; q < 200; q++) {
      lines
          .append(
              "{\"format\":\"resurfacer-scan-report\",\"version\":1,\"kind\":\"scan\",\"time\":\"2026-11-01T10:00:00Z\",")
          .append("\"producer\":\"trino\",\"table\":\"resurfacer.db.t\",\"snapshot-id\":")
          .append(table.currentSnapshot().snapshotId())
          .append(",\"filter\":{\"type\":\"eq\",\"term\":\"id\",\"value\":")
          .append(rnd.nextInt(100_000))
          .append(
              "},\"filter-values\":true,\"projected-field-names\":[\"s\"],\"data-files-scanned\":8,\"data-files-skipped\":0,")
          .append("\"bytes-scanned\":40000}\n");
    }
    lines.append("garbage line\n");
    Files.writeString(reports.resolve("trino.jsonl"), lines);
    catalog.close();
  }

  @Test
  void recommendsSortingByTheFilteredColumnInTextAndJson() throws Exception {
    CliRun text = CliRun.run(dir, "advise", "db.t", "--scan-reports", reports.toString());
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("advice for db.t from 200 scan report(s), 1 malformed or foreign line(s) skipped")
        .contains("recommend: sort by id")
        .contains("--strategy sort --sort-by 'id'")
        .contains("since snapshot")
        .contains("8.0 data files per scan");
    CliRun json =
        CliRun.run(dir, "advise", "db.t", "--scan-reports", reports.toString(), "--output", "json");
    assertThat(json.exitCode()).isZero();
    JsonNode a = new ObjectMapper().readTree(json.out());
    assertThat(a.get("recommendation").get("strategy").asText()).isEqualTo("sort");
    assertThat(a.get("recommendation").get("order_by").asText()).isEqualTo("id");
    assertThat(a.get("skipped_lines").asLong()).isEqualTo(1);
    assertThat(a.get("current").get("files_per_query").asDouble()).isGreaterThan(7.5);
    assertThat(a.get("recommendation").get("expected_files_per_query").asDouble())
        .isLessThan(2.0);
  }

  @Test
  void badInputIsOneLineAndExitTwo() {
    CliRun missing =
        CliRun.run(dir, "advise", "db.t", "--scan-reports", dir.resolve("nope").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err().strip()).startsWith("error: no scan reports at").doesNotContain("\n");
    CliRun unset = CliRun.run(dir, "advise", "db.t");
    assertThat(unset.exitCode()).isEqualTo(2);
    assertThat(unset.err()).contains("pass --scan-reports DIR or set compact.scan-reports");
    CliRun gain = CliRun.run(
        dir, "advise", "db.t", "--scan-reports", reports.toString(), "--min-gain", "1.5");
    assertThat(gain.exitCode()).isEqualTo(2);
  }

  @Test
  void reportsOfOtherTablesOnlyMeanNothingToLearn() throws Exception {
    Path other = dir.resolve("other");
    Files.createDirectories(other);
    Files.writeString(
        other.resolve("r.jsonl"),
        "{\"format\":\"resurfacer-scan-report\",\"kind\":\"scan\",\"table\":\"db.x\","
            + "\"data-files-scanned\":1}\n");
    CliRun r = CliRun.run(dir, "advise", "db.t", "--scan-reports", other.toString());
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("no scan reports for this table");
  }
}
