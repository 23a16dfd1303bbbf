package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineCapability;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner hands each operation to the table's execution engine, and refuses what that engine declares it cannot do. */
class ExecutionEngineRoutingTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  /** An engine that runs rewrite-manifests by marking the table, and declares compaction refused. */
  static final class MarkingEngine implements ExecutionEngine {
    @Override
    public String name() {
      return "marking";
    }

    @Override
    public List<EngineCapability> capabilities() {
      return List.of(
          EngineCapability.works("marking", "iceberg", "rewrite-manifests", "marks the table")
              .refusing("sort-by", "it marks whole tables only"),
          EngineCapability.refused(
              "marking", "iceberg", "compact", "this engine cannot rewrite data files"));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType) {
      if (!format.equals("iceberg") || handleType != IcebergTable.class) {
        return List.of();
      }
      OperationExecutor<RewriteManifests, IcebergTable> x = new OperationExecutor<>() {
        @Override
        public Class<RewriteManifests> operationType() {
          return RewriteManifests.class;
        }

        @Override
        public Step execute(RewriteManifests op, IcebergTable t, Mode mode) {
          if (mode == Mode.COMMIT) {
            t.table().updateProperties().set("marked-by", "marking").commit();
          }
          return Step.done("marked", Map.of());
        }
      };
      return List.of((OperationExecutor<?, T>) (OperationExecutor<?, ?>) x);
    }
  }

  @Test
  void
      anOperationRunsOnTheTablesEngineAndARefusedOneIsReportedWithTheEnginesReasonAndChangesNothing() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 4);
    List<String> rows = Rows.sortedStrings(table);
    long snapshot = table.currentSnapshot().snapshotId();

    MaintenancePlan refused = MaintenancePlan.of(
        Maintain.table("raw.clicks").engine("marking").compact(Map.of("min-input-files", "2")));
    MaintenancePlan runs =
        MaintenancePlan.of(Maintain.table("raw.clicks").engine("marking").rewriteManifests());
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))
        .executionEngines(List.of(new MarkingEngine()))) {
      RunReport report = r.run(refused, Mode.COMMIT);
      OperationResult compact = report.tables().get(0).operations().get(0);
      assertThat(compact.outcome()).isEqualTo(Outcome.REFUSED);
      assertThat(compact.message())
          .isEqualTo(
              "engine marking does not run compact on iceberg tables: this engine cannot rewrite data files");
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);

      RunReport done = r.run(runs, Mode.COMMIT);
      assertThat(done.tables().get(0).operations().get(0).outcome()).isEqualTo(Outcome.DONE);
      table.refresh();
      assertThat(table.properties()).containsEntry("marked-by", "marking");
      assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
    }
  }

  @Test
  void anEngineThatWasNotOpenedIsAUsageErrorBeforeAnythingRuns() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 3);
    long snapshot = table.currentSnapshot().snapshotId();
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))) {
      assertThatThrownBy(() -> r.run(
              MaintenancePlan.of(Maintain.table("raw.clicks").engine("spark").compact()),
              Mode.COMMIT))
          .isInstanceOf(UsageException.class)
          .hasMessage("engine 'spark' is not open for this run (opened: local)");
    }
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void aSettingTheEngineDeclaresItHasNoArgumentForIsAUsageErrorBeforeAnythingRuns() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 3);
    long snapshot = table.currentSnapshot().snapshotId();
    // expire would run first on the local engine: the refusal must come before it
    MaintenancePlan plan = MaintenancePlan.of(
        Maintain.table("raw.clicks").engine("marking").rewriteManifests("day"),
        Maintain.table("raw.clicks").expireSnapshots(java.time.Duration.ZERO, 1));
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))
        .executionEngines(List.of(new MarkingEngine()))) {
      assertThatThrownBy(() -> r.run(plan, Mode.COMMIT))
          .isInstanceOf(UsageException.class)
          .hasMessage(
              "raw.clicks: engine marking does not take rewrite-manifests sort-by (--sort-by, policy rewrite-manifests.sort-by) on iceberg"
                  + " tables: it marks whole tables only; run it with --engine local");
    }
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(table.snapshots()).hasSize(3);
    assertThat(table.properties()).doesNotContainKey("marked-by");
  }
}
