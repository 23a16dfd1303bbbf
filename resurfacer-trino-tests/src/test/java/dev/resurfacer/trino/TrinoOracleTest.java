package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.iceberg.stats.TableStatistics;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.trino.testing.TrinoLake;
import dev.resurfacer.trino.testing.TrinoTables;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trino as a second, independent oracle for the local engine: on a table Trino wrote (every common
 * type, nulls, position deletes), each local operation in maintain's order runs through our own
 * library, and after each one Trino reads exactly the rows it read before, type-tagged; so does
 * Iceberg's own reader, and every file the table references is still in the bucket.
 */
class TrinoOracleTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  static final TrinoTables TABLES = new TrinoTables(LAKE);

  @Test
  void afterEveryLocalOperationTrinoReadsTheRowsItReadBefore() throws Exception {
    IcebergTable t = TABLES.create("oracle", 3, null);
    List<String> trino = TABLES.trinoRows("oracle");
    List<String> ours = Content.of(t.table());
    assertThat(trino).hasSize(96);

    CompactionResult compacted = Compaction.execute(Compaction.plan(
        t.table(), CompactionOptions.defaults().withOption("min-input-files", "2")));
    assertThat(compacted.allCommitted()).isTrue();
    assertThat(compacted.rewrittenFiles()).isEqualTo(6);
    same(t, trino, ours, "compact");

    t.table().refresh();
    DanglingDeletes.execute(DanglingDeletes.plan(t.name(), t.table()));
    same(t, trino, ours, "remove-dangling-deletes");

    t.table().refresh();
    ManifestRewriter.execute(ManifestRewriter.plan(t.name(), t.table()));
    same(t, trino, ours, "rewrite-manifests");

    t.table().refresh();
    assertThat(SnapshotExpiry.execute(SnapshotExpiry.plan(
                t.name(), t.table(), new ExpireOptions(Duration.ZERO, 1, List.of(), false)))
            .snapshots())
        .isNotEmpty();
    same(t, trino, ours, "expire");

    t.table().refresh();
    OrphanReport swept = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
        .olderThan(Duration.ZERO)
        .execute();
    assertThat(swept.deleted()).isTrue();
    same(t, trino, ours, "remove-orphans");
    assertThat(LAKE.count("SELECT count(*) FROM iceberg.ops.\"oracle$snapshots\""))
        .isEqualTo(1);
  }

  /** Our compute-stats writes the Puffin NDV blobs Trino plans with: SHOW STATS shows our numbers. */
  @Test
  void trinoShowsTheDistinctValueCountsOurComputeStatsWrote() throws Exception {
    IcebergTable t = TABLES.create("ndv", 2, null);
    TableStatistics.Result computed = TableStatistics.execute(
        TableStatistics.plan(t.table(), List.of("id", "qty", "cat", "note")));
    assertThat(computed.committed()).isTrue();
    t.table().refresh();
    // Trino writes statistics of its own on INSERT; the current snapshot's (after the DELETE) are
    // ours
    assertThat(t.table().statisticsFiles())
        .filteredOn(f -> f.snapshotId() == t.table().currentSnapshot().snapshotId())
        .singleElement()
        .satisfies(f -> assertThat(f.path()).isEqualTo(computed.path()));

    Map<String, Double> shown = new HashMap<>();
    for (Map<String, Object> row : LAKE.table("SHOW STATS FOR iceberg.ops.ndv")) {
      if (row.get("column_name") != null && row.get("distinct_values_count") != null) {
        shown.put(
            (String) row.get("column_name"),
            ((Number) row.get("distinct_values_count")).doubleValue());
      }
    }
    for (TableStatistics.ColumnNdv column : computed.columns()) {
      assertThat(shown.get(column.column()))
          .as("Trino's distinct_values_count of %s", column.column())
          .isEqualTo((double) column.ndv());
    }
    // the numbers are the table's, not a default: qty takes 7 values, cat 2, id one per live row
    assertThat(shown).containsEntry("qty", 7.0).containsEntry("cat", 2.0);
  }

  private static void same(IcebergTable t, List<String> trino, List<String> ours, String after) {
    assertThat(TABLES.trinoRows("oracle")).as("Trino's rows after %s", after).isEqualTo(trino);
    t.table().refresh();
    assertThat(Content.of(t.table())).as("Iceberg's rows after %s", after).isEqualTo(ours);
    assertThat(LAKE.s3().objects(t.table().location()))
        .as("files after %s", after)
        .containsAll(Invariants.reachable(t.table()));
  }
}
