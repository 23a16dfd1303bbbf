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
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.trino.testing.TrinoLake;
import dev.resurfacer.trino.testing.TrinoTables;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trino as a second, independent oracle for the local engine: on a table Trino wrote (every common
 * type, nulls, position deletes), each local operation in maintain's order runs through our own
 * library, and after each one Trino reads exactly the rows it read before, type-tagged; so does
 * Iceberg's own reader, and every file the table references is still in the bucket.
 */
class TrinoOracleTest {
  @RegisterExtension static final TrinoLake LAKE = TrinoLake.shared();
  static final TrinoTables TABLES = new TrinoTables(LAKE);

  @Test
  void afterEveryLocalOperationTrinoReadsTheRowsItReadBefore() throws Exception {
    IcebergTable t = TABLES.create("oracle", 3, null);
    List<String> trino = TABLES.trinoRows("oracle");
    List<String> ours = Content.of(t.table());
    assertThat(trino).hasSize(96);

    CompactionResult compacted = Compaction.execute(t.table(), CompactionOptions.defaults().withOption("min-input-files", "2"));
    assertThat(compacted.allCommitted()).isTrue();
    assertThat(compacted.rewrittenFiles()).isEqualTo(6);
    same(t, trino, ours, "compact");

    t.table().refresh();
    DanglingDeletes.remove(t.name(), t.table());
    same(t, trino, ours, "remove-dangling-deletes");

    t.table().refresh();
    ManifestRewriter.rewrite(t.name(), t.table());
    same(t, trino, ours, "rewrite-manifests");

    t.table().refresh();
    assertThat(SnapshotExpiry.expire(t.name(), t.table(), new ExpireOptions(Duration.ZERO, 1, List.of(), false)).snapshots()).isNotEmpty();
    same(t, trino, ours, "expire");

    t.table().refresh();
    OrphanReport swept = OrphanRemoval.of(t.catalog(), t.identifier(), t.table()).olderThan(Duration.ZERO).execute();
    assertThat(swept.deleted()).isTrue();
    same(t, trino, ours, "remove-orphans");
    assertThat(LAKE.count("SELECT count(*) FROM iceberg.ops.\"oracle$snapshots\"")).isEqualTo(1);
  }

  private static void same(IcebergTable t, List<String> trino, List<String> ours, String after) {
    assertThat(TABLES.trinoRows("oracle")).as("Trino's rows after %s", after).isEqualTo(trino);
    t.table().refresh();
    assertThat(Content.of(t.table())).as("Iceberg's rows after %s", after).isEqualTo(ours);
    assertThat(LAKE.s3().objects(t.table().location())).as("files after %s", after).containsAll(Invariants.reachable(t.table()));
  }
}
