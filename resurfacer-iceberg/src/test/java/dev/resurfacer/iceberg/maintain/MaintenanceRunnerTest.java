package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.CustomOperation;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Resurfacer;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaintenanceRunnerTest {
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

  private Resurfacer<IcebergTable> resurfacer() {
    return IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")));
  }

  /** Sets a table property: a user-defined operation, to prove the SPI. */
  record SetProperty(String key, String value) implements CustomOperation {
    @Override
    public String name() {
      return "set-property";
    }
  }

  static final class SetPropertyExecutor implements OperationExecutor<SetProperty, IcebergTable> {
    @Override
    public Class<SetProperty> operationType() {
      return SetProperty.class;
    }

    @Override
    public Step execute(SetProperty op, IcebergTable t, Mode mode) {
      if (mode == Mode.PREVIEW) {
        return Step.previewed("would set " + op.key(), Map.of());
      }
      t.table().updateProperties().set(op.key(), op.value()).commit();
      return Step.done("set " + op.key() + "=" + op.value(), Map.of("properties_set", 1L));
    }
  }

  /** Holds the table until released: lets a test keep one run inside a table while another starts. */
  record Hold(CountDownLatch entered, CountDownLatch release) implements CustomOperation {
    @Override
    public String name() {
      return "hold";
    }
  }

  static final class HoldExecutor implements OperationExecutor<Hold, IcebergTable> {
    @Override
    public Class<Hold> operationType() {
      return Hold.class;
    }

    @Override
    public Step execute(Hold op, IcebergTable t, Mode mode) throws InterruptedException {
      op.entered().countDown();
      assertThat(op.release().await(60, TimeUnit.SECONDS)).isTrue();
      return Step.done("held", Map.of());
    }
  }

  @Test
  void previewChangesNothingAndCommitRunsTheOperationsInDesignOrder() throws Exception {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 6);
    List<String> rows = Rows.sortedStrings(table);
    Files.writeString(
        Path.of(table.location(), "data", "orphan.parquet"), "left behind by a crashed writer");
    String metadataBefore = metadataLocation(table);
    // declared in the reverse of the order they must run in
    MaintenancePlan plan = MaintenancePlan.of(Maintain.table("raw.clicks")
        .removeOrphans(Duration.ZERO)
        .expireSnapshots(Duration.ZERO, 1)
        .rewriteManifests()
        .removeDanglingDeletes()
        .compact(Map.of("min-input-files", "2")));
    try (var r = resurfacer()) {
      RunReport preview = r.run(plan, Mode.PREVIEW);
      TableReport t = preview.tables().get(0);
      assertThat(t.outcome()).isEqualTo(Outcome.PREVIEWED);
      assertThat(t.operations())
          .extracting(OperationResult::operation)
          .containsExactly(
              "compact",
              "remove-dangling-deletes",
              "rewrite-manifests",
              "expire",
              "remove-orphans");
      assertThat(t.operations().get(0).message())
          .isEqualTo("would rewrite 6 file(s) ("
              + dev.resurfacer.units.ByteSizes.format(t.before().dataBytes()) + ") in 1 group(s)");
      assertThat(t.after()).isNull();
      table.refresh();
      assertThat(metadataLocation(table)).isEqualTo(metadataBefore);
      assertThat(Path.of(table.location(), "data", "orphan.parquet")).exists();

      RunReport done = r.run(plan, Mode.COMMIT);
      done.raiseIfErrors();
      t = done.tables().get(0);
      assertThat(t.outcome()).isEqualTo(Outcome.DONE);
      assertThat(t.operations())
          .extracting(OperationResult::operation, OperationResult::outcome)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("compact", Outcome.DONE),
              org.assertj.core.groups.Tuple.tuple("remove-dangling-deletes", Outcome.NOTHING_TO_DO),
              org.assertj.core.groups.Tuple.tuple("rewrite-manifests", Outcome.NOTHING_TO_DO),
              org.assertj.core.groups.Tuple.tuple("expire", Outcome.DONE),
              org.assertj.core.groups.Tuple.tuple("remove-orphans", Outcome.DONE));
      assertThat(t.operations().get(0).metrics())
          .containsEntry("rewritten_files", 6L)
          .containsEntry("added_files", 1L);
      assertThat(t.before().dataFiles()).isEqualTo(6);
      assertThat(t.after().dataFiles()).isEqualTo(1);
      assertThat(t.before().snapshots()).isEqualTo(6);
      assertThat(t.after().snapshots()).isEqualTo(1);
      assertThat(t.operations().get(4).message()).startsWith("deleted 1 orphan file(s)");
    }
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
    assertThat(table.properties()).doesNotContainKey(TableLease.PROPERTY);
    assertThat(Path.of(table.location(), "data", "orphan.parquet")).doesNotExist();
  }

  @Test
  void aCustomOperationPlugsInThroughItsExecutorAndRunsAfterTheBuiltIns() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 2);
    Fleet.smallFiles(catalog, "raw", "views", 2);
    MaintenancePlan plan = MaintenancePlan.of(
        Maintain.namespace("raw").then(new SetProperty("owner", "team-a")).rewriteManifests(),
        Maintain.table("raw.clicks").then(new SetProperty("owner", "team-b")));
    try (var r = resurfacer()) {
      assertThatThrownBy(() -> r.run(plan, Mode.COMMIT))
          .isInstanceOf(UsageException.class)
          .hasMessageStartingWith("no executor is registered for operation 'set-property'");
      table.refresh();
      assertThat(table.properties()).doesNotContainKey("owner");

      RunReport report = r.register(new SetPropertyExecutor()).run(plan, Mode.COMMIT);
      assertThat(report.tables())
          .extracting(TableReport::table)
          .containsExactly("raw.clicks", "raw.views");
      TableReport clicks = report.tables().get(0);
      assertThat(clicks.operations())
          .extracting(OperationResult::operation)
          .containsExactly("rewrite-manifests", "set-property");
      assertThat(clicks.operations().get(1).message()).isEqualTo("set owner=team-b");
      assertThat(clicks.operations().get(1).metrics()).containsEntry("properties_set", 1L);
    }
    table.refresh();
    assertThat(table.properties()).containsEntry("owner", "team-b");
    assertThat(catalog.loadTable(TableIdentifier.of("raw", "views")).properties())
        .containsEntry("owner", "team-a");
  }

  @Test
  void aSecondRunSkipsATableTheFirstIsStillMaintaining() throws Exception {
    Fleet.smallFiles(catalog, "raw", "clicks", 2);
    Fleet.smallFiles(catalog, "raw", "views", 2);
    Hold hold = new Hold(new CountDownLatch(1), new CountDownLatch(1));
    try (var first = resurfacer().register(new HoldExecutor());
        var second = resurfacer()) {
      CompletableFuture<RunReport> running = CompletableFuture.supplyAsync(() ->
          first.run(MaintenancePlan.of(Maintain.table("raw.clicks").then(hold)), Mode.COMMIT));
      assertThat(hold.entered().await(60, TimeUnit.SECONDS)).isTrue();

      RunReport overlapping =
          second.run(MaintenancePlan.of(Maintain.namespace("raw").rewriteManifests()), Mode.COMMIT);
      TableReport clicks = overlapping.tables().get(0);
      assertThat(clicks.outcome()).isEqualTo(Outcome.SKIPPED);
      assertThat(clicks.message())
          .startsWith("skipped: another maintain run holds the lease on this table (resurfacer@");
      assertThat(clicks.operations())
          .extracting(OperationResult::outcome)
          .containsExactly(Outcome.SKIPPED);
      assertThat(clicks.before()).as("measured only under the run's own lease").isNull();
      assertThat(overlapping.tables().get(1).before().dataFiles()).isEqualTo(2);
      assertThat(overlapping.tables().get(1).outcome()).isEqualTo(Outcome.DONE);
      assertThat(overlapping.exitCode()).isZero();

      hold.release().countDown();
      assertThat(running.get(60, TimeUnit.SECONDS).tables().get(0).outcome())
          .isEqualTo(Outcome.DONE);
      // the lease is gone, so the next run gets in
      assertThat(second
              .run(MaintenancePlan.of(Maintain.table("raw.clicks").rewriteManifests()), Mode.COMMIT)
              .tables()
              .get(0)
              .outcome())
          .isEqualTo(Outcome.DONE);
    }
  }

  @Test
  void anExpiredLeaseIsTakenOver() {
    Table table = Fleet.smallFiles(catalog, "raw", "clicks", 1);
    table
        .updateProperties()
        .set(TableLease.PROPERTY, "resurfacer@crashed/1 until " + Instant.now().minusSeconds(60))
        .commit();
    try (var r = resurfacer()) {
      assertThat(r.run(
                  MaintenancePlan.of(Maintain.table("raw.clicks").rewriteManifests()), Mode.COMMIT)
              .tables()
              .get(0)
              .outcome())
          .isEqualTo(Outcome.DONE);
    }
    table.refresh();
    assertThat(table.properties()).doesNotContainKey(TableLease.PROPERTY);
  }

  @Test
  void aTableThatCannotBeOpenedFailsAloneAndRaiseIfErrorsNamesIt() throws Exception {
    Table broken = Fleet.smallFiles(catalog, "raw", "broken", 1);
    Fleet.smallFiles(catalog, "raw", "fine", 3);
    Files.delete(Path.of(java.net.URI.create("file:" + metadataLocation(broken)).getPath()));
    try (var r = resurfacer()) {
      RunReport report = r.run(
          MaintenancePlan.of(Maintain.namespace("raw").compact(Map.of("min-input-files", "2"))),
          Mode.COMMIT);
      assertThat(report.tables())
          .extracting(TableReport::table, TableReport::outcome)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("raw.broken", Outcome.FAILED),
              org.assertj.core.groups.Tuple.tuple("raw.fine", Outcome.DONE));
      assertThat(report.tables().get(0).message()).startsWith("cannot open table: ");
      assertThat(report.exitCode()).isEqualTo(1);
      assertThatThrownBy(report::raiseIfErrors)
          .isInstanceOf(RunReport.MaintenanceFailed.class)
          .hasMessageStartingWith(
              "1 table(s) did not finish: lake.raw.broken failed: cannot open table: ");
    }
  }

  private static String metadataLocation(Table table) {
    return ((HasTableOperations) table).operations().current().metadataFileLocation();
  }
}
