package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.policy.TablePolicy;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code maintain} with every built-in operation on one table: one report, design order, same rows. */
class EveryOperationMaintainTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "note", Types.StringType.get()));
  static final List<String> DESIGN_ORDER =
      dev.resurfacer.iceberg.testing.EveryOperation.DESIGN_ORDER;

  @TempDir
  Path dir;

  private static List<Record> rows(long start, int n, LocalDate day) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("day", day);
      r.setField("note", "n" + (start + i) % 7);
      out.add(r);
    }
    return out;
  }

  /**
   * Old days (condensed to a month), today's small files with position and equality deletes (left to
   * the delete operations: compaction needs more files than today has), upgraded to v3.
   */
  private Table history(JdbcCatalog catalog) {
    catalog.createNamespace(Namespace.of("raw"));
    Table table = catalog
        .buildTable(TableIdentifier.of("raw", "events"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).day("day").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int d = 0; d < 3; d++) {
      for (int f = 0; f < 2; f++) {
        table
            .newAppend()
            .appendFile(TableWrites.writeData(
                    table, rows(d * 100L + f * 10, 10, LocalDate.of(2020, 1, 1 + d)))
                .get(0))
            .commit();
      }
    }
    LocalDate today = LocalDate.now(java.time.ZoneOffset.UTC);
    List<DataFile> recent = new ArrayList<>();
    for (int f = 0; f < 2; f++) {
      DataFile file =
          TableWrites.writeData(table, rows(1_000L + f * 10, 10, today)).get(0);
      table.newAppend().appendFile(file).commit();
      recent.add(file);
    }
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(
            table,
            table.spec(),
            recent.get(0).partition(),
            List.of(
                new Position(recent.get(0).location(), 0),
                new Position(recent.get(1).location(), 1))))
        .commit();
    Schema idOnly = SCHEMA.select("id");
    Record gone = GenericRecord.create(idOnly);
    gone.setField("id", 1_015L);
    table
        .newRowDelta()
        .addDeletes(TableWrites.writeEqualityDeletes(
            table, table.spec(), recent.get(0).partition(), idOnly, List.of(gone)))
        .commit();
    // maintained right after the upgrade: the rows written before it have no v3 row ids yet
    FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    table.refresh();
    return table;
  }

  @Test
  void everyOperationRunsOnceInDesignOrderAndRowsStayTheSame() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = history(catalog);
    List<String> rows = Rows.sortedStrings(table);
    Files.writeString(
        Path.of(table.location(), "data", "orphan.parquet"), "left behind by a crashed writer");
    // declared in reverse: the runner orders them
    MaintenancePlan plan = MaintenancePlan.of(Maintain.table("raw.events")
        .removeOrphans(Duration.ZERO)
        .expireSnapshots(Duration.ZERO, 1)
        .computePartitionStats()
        .computeStats()
        .rewriteManifests()
        .rewritePositionDeletes()
        .convertEqualityDeletes()
        .removeDanglingDeletes()
        .compact(Map.of("min-input-files", "3"))
        .condense("month", Duration.ofDays(30))
        .applyRetention(10));
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))) {
      RunReport preview = r.run(plan, Mode.PREVIEW);
      assertThat(preview.tables())
          .singleElement()
          .satisfies(t -> assertThat(t.operations())
              .extracting(OperationResult::operation)
              .containsExactlyElementsOf(DESIGN_ORDER));

      RunReport done = r.run(plan, Mode.COMMIT);
      done.raiseIfErrors();
      TableReport t = done.tables().get(0);
      assertThat(t.operations())
          .extracting(OperationResult::operation)
          .containsExactlyElementsOf(DESIGN_ORDER);
      assertThat(t.operations())
          .filteredOn(o -> !o.operation().equals("remove-dangling-deletes")
              && !o.operation().equals("rewrite-manifests")
              && !o.operation().equals("compact"))
          .allSatisfy(o -> assertThat(o.outcome())
              .as(o.operation() + ": " + o.message())
              .isEqualTo(Outcome.DONE));
    }
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
    TableHealth h = HealthInspector.inspect("raw.events", table);
    assertThat(h.deletes().positionDeleteFiles()).isZero();
    assertThat(h.deletes().equalityDeleteFiles()).isZero();
    assertThat(h.deletes().deletionVectors()).isEqualTo(2);
    assertThat(h.maintenanceProperties())
        .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "10");
    assertThat(h.history().snapshots()).isEqualTo(1);
    // statistics describe the snapshot expiry kept, and survive orphan removal
    assertThat(h.statistics())
        .extracting(TableHealth.Statistics::kind)
        .containsExactlyInAnyOrder("table", "partition");
    assertThat(h.statistics()).allSatisfy(s -> {
      assertThat(s.current()).isTrue();
      assertThat(Path.of(java.net.URI.create(s.path()).getPath())).exists();
    });
    assertThat(Path.of(table.location(), "data", "orphan.parquet")).doesNotExist();
  }

  @Test
  void thePolicyEnablesTheNewOperationsOnlyWhenAsked() {
    assertThat(Maintain.fromPolicy("raw.events", TablePolicy.BUILT_IN).operations())
        .extracting(o -> o.name())
        .containsExactly(
            "compact",
            "remove-dangling-deletes",
            "rewrite-manifests",
            "expire",
            "remove-orphans",
            "vacuum",
            "cleanup-log");
    // a policy names both formats' operations; an Iceberg table keeps its own
    try (var r = IcebergResurfacer.connect(dev.resurfacer.iceberg.testing.SqliteCatalogs.create(
        "lake", dir.resolve("only-iceberg")))) {
      assertThat(Maintain.fromPolicy("raw.events", TablePolicy.BUILT_IN)
              .retainOnly(r::supports)
              .operations())
          .extracting(o -> o.name())
          .containsExactly(
              "compact",
              "remove-dangling-deletes",
              "rewrite-manifests",
              "expire",
              "remove-orphans");
    }
  }
}
