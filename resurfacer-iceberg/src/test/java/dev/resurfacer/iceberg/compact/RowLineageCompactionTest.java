package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import dev.resurfacer.iceberg.upgrade.RowLineage;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 16: v3 row lineage through compaction. Rows written before an upgrade have no ids until the
 * first v3 commit gives them some (Iceberg's reader reports null until then); a rewrite starts from
 * that commit and keeps the ids it gave, as every later rewrite keeps the ids it reads.
 */
class RowLineageCompactionTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "v", Types.LongType.get()));
  static final Schema LINEAGE = new Schema(
      SCHEMA.findField("id"), MetadataColumns.ROW_ID, MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("lake", dir.resolve("lake"));
    catalog.createNamespace(Namespace.of("db"));
  }

  /** Four small files and a position delete, in {@code formatVersion}; v2 then upgraded when {@code upgrade}. */
  private Table table(String name, int formatVersion, boolean upgrade) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", name), SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", f * 100L + i);
        r.setField("v", (long) ((i * 37 + f) % 50));
        rows.add(r);
      }
      DataFile file = TableWrites.writeData(table, rows).get(0);
      table.newAppend().appendFile(file).commit();
      files.add(file);
    }
    if (formatVersion < 3) {
      table
          .newRowDelta()
          .addDeletes(TableWrites.writePositionDeletes(
              table,
              table.spec(),
              null,
              List.of(
                  new Position(files.get(0).location(), 3),
                  new Position(files.get(2).location(), 17))))
          .commit();
    } else {
      var delta = table.newRowDelta();
      TableWrites.writeDeletionVectors(
              table, Map.of(files.get(0), List.of(3L), files.get(2), List.of(17L)))
          .forEach(delta::addDeletes);
      delta.commit();
    }
    if (upgrade) {
      FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
    }
    table.refresh();
    return table;
  }

  /** id to (_row_id, _last_updated_sequence_number), as Iceberg's delete-aware generic reader reports them. */
  private static Map<Long, List<Long>> lineage(Table table, long snapshotId) throws IOException {
    Map<Long, List<Long>> out = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<Record> rows = LiveRows.read(table, task, LINEAGE)) {
          rows.forEach(r ->
              out.put((Long) r.get(0), java.util.Arrays.asList((Long) r.get(1), (Long) r.get(2))));
        }
      }
    }
    return out;
  }

  private static void assertIdsAssignedAndUnique(Map<Long, List<Long>> lineage) {
    assertThat(lineage.values()).allSatisfy(v -> assertThat(v).doesNotContainNull());
    Set<Long> ids = new HashSet<>();
    lineage.values().forEach(v -> ids.add(v.get(0)));
    assertThat(ids).hasSameSizeAs(lineage.values());
  }

  private static CompactionOptions options(String runner, boolean sorted) {
    CompactionOptions o = CompactionOptions.defaults()
        .withOption("min-input-files", "2")
        .withRunner(CompactionOptions.Runner.valueOf(runner));
    return sorted ? o.withOrdering(new Ordering.Sort("v")) : o;
  }

  @ParameterizedTest(name = "v{0}{1}, {2}, sorted {3}")
  @CsvSource({
    "2, true, DUCKDB, false",
    "2, true, DUCKDB, true",
    "2, true, GENERIC, false",
    "2, true, GENERIC, true",
    "3, false, DUCKDB, true"
  })
  void compactionAndMaintainKeepEveryRowIdIcebergReports(
      int formatVersion, boolean upgrade, String runner, boolean sorted) throws IOException {
    Table table = table("t", formatVersion, upgrade);
    long start = table.currentSnapshot().snapshotId();
    List<String> rows = Rows.sortedStrings(table);
    assertThat(rows).hasSize(158);
    Map<Long, List<Long>> before = lineage(table, start);
    if (upgrade) {
      // the spec: snapshots from before the upgrade carry no ids; Iceberg's reader reports null
      assertThat(before.values()).allSatisfy(v -> assertThat(v).containsOnlyNulls());
      assertThat(Compaction.plan(table, options(runner, sorted)).readout().warnings())
          .contains(RowLineage.PLAN_NOTE);
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId())
          .as("a preview commits nothing")
          .isEqualTo(start);
    } else {
      assertIdsAssignedAndUnique(before);
    }

    CompactionResult result = Compaction.execute(Compaction.plan(table, options(runner, sorted)));

    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED);
      assertThat(g.runner()).isEqualTo(runner.toLowerCase(java.util.Locale.ROOT));
    });
    table.refresh();
    if (upgrade) {
      // the first v3 commit changes no file and gives every row its id; the rewrite starts from it
      Snapshot assigning = table.snapshot(table.currentSnapshot().parentId());
      assertThat(assigning.parentId()).isEqualTo(start);
      assertThat(assigning.operation()).isEqualTo("replace");
      assertThat(assigning.summary())
          .containsEntry(Compaction.SUMMARY_PROPERTY, RowLineage.SUMMARY_VALUE);
      assertThat(Rows.sortedStrings(table, assigning.snapshotId())).isEqualTo(rows);
      before = lineage(table, assigning.snapshotId());
      assertIdsAssignedAndUnique(before);
    }
    assertThat(lineage(table, table.currentSnapshot().snapshotId())).isEqualTo(before);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);

    MaintenancePlan maintain = MaintenancePlan.of(Maintain.table("db.t")
        .compact(Map.of("min-input-files", "1", "rewrite-all", "true"))
        .rewriteManifests()
        .expireSnapshots(Duration.ZERO, 1));
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))) {
      r.run(maintain, Mode.COMMIT).raiseIfErrors();
    }
    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(lineage(table, table.currentSnapshot().snapshotId())).isEqualTo(before);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);
  }

  /**
   * Verification compares like with like: for rows without ids a runner writes null (the commit then
   * assigns ids), and the check reads the null stored in the new file, not a value made up on reading.
   */
  @Test
  void rowsWithoutIdsAreRewrittenWithoutIdsAndVerified() throws IOException {
    Table table = table("t", 2, true);
    for (GroupRewriter rewriter : List.of(new DuckDbRewriter(), new GenericRewriter())) {
      rewriteWithoutIds(table, rewriter);
    }
  }

  private void rewriteWithoutIds(Table table, GroupRewriter rewriter) throws IOException {
    String runner = rewriter.name().toUpperCase(java.util.Locale.ROOT);
    PlannedCompaction planned = Compaction.plan(table, options(runner, false));
    assertThat(planned.groups()).hasSize(1);
    Path scratch = java.nio.file.Files.createDirectories(dir.resolve("scratch"));
    GroupRewriter.Settings settings = new GroupRewriter.Settings(
        256L << 20, 1, scratch, planned.targetFileSize(), planned.ordering());

    RewrittenGroup r = GroupRewrite.run(
        table, planned.groups().get(0), 0, rewriter, settings, options(runner, false));

    assertThat(r.verdict())
        .as(rewriter.name() + ": " + r.message())
        .isEqualTo(RewrittenGroup.Verdict.VERIFIED);
    Map<Long, List<Long>> stored = new TreeMap<>();
    for (DataFile f : planned.groups().get(0).addedFiles()) {
      // a fallback of -1 marks the nulls stored in the file
      Map<Integer, Object> fallback = Map.of(
          MetadataColumns.ROW_ID.fieldId(),
          -1_000_000L,
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(),
          -1L);
      try (CloseableIterable<Record> rows = org.apache.iceberg.parquet.Parquet.read(
              table.io().newInputFile(f.location()))
          .project(LINEAGE)
          .createReaderFunc(fs -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(
              LINEAGE, fs, fallback))
          .build()) {
        rows.forEach(row -> stored.put(
            (Long) row.get(0),
            List.of((Long) row.get(1) < 0 ? -1L : (Long) row.get(1), (Long) row.get(2))));
      }
    }
    assertThat(stored).hasSize(158);
    assertThat(stored.values())
        .as(rewriter.name())
        .allSatisfy(v -> assertThat(v).containsOnly(-1L));
    planned.groups().get(0).addedFiles().forEach(f -> table.io().deleteFile(f.location()));
  }
}
