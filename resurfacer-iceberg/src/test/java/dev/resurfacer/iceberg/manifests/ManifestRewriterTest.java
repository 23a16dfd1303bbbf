package dev.resurfacer.iceberg.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.metrics.ScanReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestRewriterTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;
  Table table;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    table = Orders.create(catalog, "db", "events", 2);
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
  }

  /** 30 streaming-style single-file commits over 3 day partitions: one manifest per commit. */
  @Test
  void aPartitionFilteredScanOpensFewerManifestsAndNothingElseChanges() throws Exception {
    for (int i = 0; i < 30; i++) {
      table
          .newAppend()
          .appendFile(
              TableWrites.writeData(table, Orders.rows(i * 10L, 10, i % 3)).get(0))
          .commit();
    }
    List<String> rowsBefore = Rows.sortedStrings(table);
    Map<String, List<Long>> seqBefore = sequenceNumbers();
    long snapshotBefore = table.currentSnapshot().snapshotId();
    assertThat(manifestsScannedForOneDay()).isEqualTo(10);

    ManifestRewriteResult preview = ManifestRewriter.plan("db.events", table).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.dataManifestsBefore()).isEqualTo(30);
    assertThat(preview.partitions()).isEqualTo(3);
    assertThat(preview.liveDataFiles()).isEqualTo(30);
    assertThat(preview.expectedDataManifests()).isEqualTo(3);
    assertThat(preview.alreadyClustered()).isFalse();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);

    ManifestRewriteResult done =
        ManifestRewriter.execute(ManifestRewriter.plan("db.events", table));

    assertThat(done.committed()).isTrue();
    assertThat(done.dataManifestsAfter()).isEqualTo(preview.expectedDataManifests());
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId())
        .isEqualTo(done.snapshotId())
        .isNotEqualTo(snapshotBefore);
    assertThat(table.currentSnapshot().operation()).isEqualTo(DataOperations.REPLACE);
    assertThat(manifestsScannedForOneDay()).isEqualTo(1);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
    assertThat(sequenceNumbers()).isEqualTo(seqBefore);

    // a second run finds the manifests clustered and commits nothing
    ManifestRewriteResult again =
        ManifestRewriter.execute(ManifestRewriter.plan("db.events", table));
    assertThat(again.alreadyClustered()).isTrue();
    assertThat(again.committed()).isFalse();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(done.snapshotId());
  }

  /**
   * One commit of files in three partitions is one manifest holding three partitions: the verb, its
   * preview and {@code maintain --yes} all say nothing to do (the rewriter leaves one manifest as it
   * is), and the commit run reports no {@code previewed}.
   */
  @Test
  void oneManifestOfSeveralPartitionsIsNothingToDoForTheVerbItsPreviewAndMaintain()
      throws Exception {
    var append = table.newAppend();
    for (int day = 0; day < 3; day++) {
      append.appendFile(
          TableWrites.writeData(table, Orders.rows(day * 10L, 10, day)).get(0));
    }
    append.commit();
    long snapshot = table.currentSnapshot().snapshotId();

    ManifestRewriteResult preview = ManifestRewriter.plan("db.events", table).preview();
    assertThat(preview.dataManifestsBefore()).isEqualTo(1);
    assertThat(preview.partitions()).isEqualTo(3);
    assertThat(preview.notNeeded()).contains("one data manifest: nothing to regroup");
    assertThat(
            ManifestRewriter.execute(ManifestRewriter.plan("db.events", table)).committed())
        .isFalse();
    try (var r = dev.resurfacer.iceberg.maintain.IcebergResurfacer.connect(
        SqliteCatalogs.create("test", dir))) {
      var plan = dev.resurfacer.maintain.MaintenancePlan.of(
          dev.resurfacer.maintain.Maintain.table("db.events").rewriteManifests());
      for (var mode : dev.resurfacer.maintain.Mode.values()) {
        dev.resurfacer.report.OperationResult op =
            r.run(plan, mode).tables().get(0).operations().get(0);
        assertThat(op.outcome())
            .as(mode + ": " + op.message())
            .isEqualTo(dev.resurfacer.report.Outcome.NOTHING_TO_DO);
        assertThat(op.message()).isEqualTo("one data manifest: nothing to regroup");
        assertThat(op.metrics()).containsEntry("data_manifests_after", 1L);
      }
    }
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void sortByClustersOnTheChosenPartitionFieldsOnly() {
    dayAndBucketCommits();
    List<String> rowsBefore = Rows.sortedStrings(table);
    ManifestRewriteResult byPartition =
        ManifestRewriter.plan("db.events", table).preview();
    assertThat(byPartition.partitions()).as("day x bucket combinations").isGreaterThan(2);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ManifestRewriter.plan("db.events", table, List.of("nope")).preview())
        .isInstanceOf(dev.resurfacer.UsageException.class)
        .hasMessageContaining("no partition field 'nope'");

    ManifestRewriteResult byDay =
        ManifestRewriter.execute(ManifestRewriter.plan("db.events", table, List.of("day")));
    assertThat(byDay.committed()).isTrue();
    assertThat(byDay.partitions()).isEqualTo(2);
    assertThat(byDay.dataManifestsAfter()).isEqualTo(2);
    assertThat(ManifestRewriter.execute(ManifestRewriter.plan("db.events", table, List.of("day")))
            .committed())
        .isFalse();
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
  }

  /** {@code rewrite-manifests.sort-by} in a policy reaches {@code maintain}; a field no spec has fails that operation in one line. */
  @Test
  void thePolicySortByClustersManifestsInMaintain() {
    dayAndBucketCommits();
    List<String> rowsBefore = Rows.sortedStrings(table);
    try (var r = dev.resurfacer.iceberg.maintain.IcebergResurfacer.connect(
        SqliteCatalogs.create("test", dir))) {
      dev.resurfacer.report.OperationResult unknown = runPolicy(r, "[day, nope]");
      assertThat(unknown.outcome()).isEqualTo(dev.resurfacer.report.Outcome.FAILED);
      assertThat(unknown.message())
          .isEqualTo("rewrite-manifests sort-by: test.db.events has no partition field 'nope'"
              + " (partition fields: day, id_bucket_3)");
      table.refresh();
      assertThat(table.currentSnapshot().allManifests(table.io())).hasSize(12);

      dev.resurfacer.report.OperationResult byDay = runPolicy(r, "[day]");
      assertThat(byDay.outcome()).as(byDay.message()).isEqualTo(dev.resurfacer.report.Outcome.DONE);
    }
    table.refresh();
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(2);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore);
  }

  private static dev.resurfacer.report.OperationResult runPolicy(
      dev.resurfacer.maintain.Resurfacer<?> r, String sortBy) {
    dev.resurfacer.policy.TablePolicy policy = dev.resurfacer.config.ConfigFile.parse(
            """
        defaults:
          compact: {enabled: false}
          remove-dangling-deletes: {enabled: false}
          expire: {enabled: false}
          remove-orphans: {enabled: false}
        tables:
          db.events:
            rewrite-manifests: {sort-by: %s}
        """.formatted(sortBy),
            "resurfacer.yml",
            new dev.resurfacer.config.Secrets(java.util.Map.of()))
        .policies()
        .effective("db.events")
        .policy();
    var plan = dev.resurfacer.maintain.MaintenancePlan.of(
        dev.resurfacer.maintain.Maintain.fromPolicy("db.events", policy).retainOnly(r::supports));
    var report = r.run(plan, dev.resurfacer.maintain.Mode.COMMIT);
    assertThat(report.tables().get(0).operations())
        .extracting(o -> o.operation())
        .containsExactly("rewrite-manifests");
    return report.tables().get(0).operations().get(0);
  }

  /** A bucket field added to the day spec, then 12 single-file commits over 2 days: one manifest each. */
  private void dayAndBucketCommits() {
    table.updateSpec().addField(Expressions.bucket("id", 3)).commit();
    for (int i = 0; i < 12; i++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, Orders.rows(i, 1, i % 2)).get(0))
          .commit();
    }
  }

  @Test
  void deleteManifestsAreKeptAndAnEmptyTableIsANoOp() {
    assertThat(
            ManifestRewriter.execute(ManifestRewriter.plan("db.events", table)).committed())
        .isFalse();
    for (int i = 0; i < 4; i++) {
      var file = TableWrites.writeData(table, Orders.rows(i * 10L, 10, i % 2)).get(0);
      table.newAppend().appendFile(file).commit();
      table
          .newRowDelta()
          .addDeletes(TableWrites.writePositionDeletes(
              table,
              Orders.SPEC,
              file.partition(),
              List.of(new TableWrites.Position(file.location(), 0))))
          .commit();
    }
    List<String> rowsBefore = Rows.sortedStrings(table);
    ManifestRewriteResult done =
        ManifestRewriter.execute(ManifestRewriter.plan("db.events", table));
    assertThat(done.deleteManifests()).isEqualTo(4);
    assertThat(done.dataManifestsAfter()).isEqualTo(2);
    table.refresh();
    assertThat(table.currentSnapshot().deleteManifests(table.io())).hasSize(4);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rowsBefore).hasSize(36);
  }

  /** Data manifests the scan planner opened for one day, as Iceberg's own scan metrics count them. */
  private long manifestsScannedForOneDay() throws IOException {
    AtomicReference<ScanReport> report = new AtomicReference<>();
    try (CloseableIterable<FileScanTask> tasks = table
        .newScan()
        .filter(Expressions.equal("day", Orders.DAY0.plusDays(1).toString()))
        .metricsReporter(r -> report.set((ScanReport) r))
        .planFiles()) {
      assertThat(tasks).hasSize(10);
    }
    return report.get().scanMetrics().scannedDataManifests().value();
  }

  /** Every live data file's data and file sequence numbers. */
  private Map<String, List<Long>> sequenceNumbers() throws IOException {
    Map<String, List<Long>> out = new TreeMap<>();
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        out.put(
            t.file().location(),
            List.of(t.file().dataSequenceNumber(), t.file().fileSequenceNumber()));
      }
    }
    return out;
  }
}
