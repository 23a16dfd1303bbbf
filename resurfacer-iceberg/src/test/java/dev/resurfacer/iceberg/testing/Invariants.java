package dev.resurfacer.iceberg.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanRemovalSeams;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The promise "nothing is ever lost", as assertions: the table loads, every retained snapshot and
 * every ref reads what it read before, no referenced file is missing, and after a sweep with the
 * age guard off storage holds exactly the reachable set. Counts every assertion it makes.
 */
public final class Invariants {
  private static final AtomicLong CHECKED = new AtomicLong();

  private Invariants() {}

  public static long checked() {
    return CHECKED.get();
  }

  /** Loads the table and checks it against the state captured before maintenance; returns the table. */
  public static Table sameRowsAndNothingMissing(
      Catalog catalog, TableIdentifier id, TableState before) {
    Table table = catalog.loadTable(id);
    CHECKED.incrementAndGet();
    sameRows(table, before);
    nothingMissing(table);
    return table;
  }

  public static void sameRows(Table table, TableState before) {
    table.refresh();
    for (Snapshot s : table.snapshots()) {
      List<String> expected = before.snapshotRows().get(s.snapshotId());
      if (expected != null) {
        assertThat(Rows.sortedStrings(table, s.snapshotId()))
            .as("rows of retained snapshot %s", s.snapshotId())
            .isEqualTo(expected);
        CHECKED.incrementAndGet();
      }
    }
    assertThat(table.refs().keySet()).as("refs").containsAll(before.refRows().keySet());
    for (var ref : before.refRows().entrySet()) {
      long head = table.refs().get(ref.getKey()).snapshotId();
      assertThat(Rows.sortedStrings(table, head))
          .as("rows of ref %s", ref.getKey())
          .isEqualTo(ref.getValue());
      CHECKED.incrementAndGet();
    }
  }

  public static void nothingMissing(Table table) {
    for (String f : reachable(table)) {
      assertThat(Disk.exists(f)).as("referenced file %s exists", f).isTrue();
      CHECKED.incrementAndGet();
    }
  }

  /** Every file the metadata references: metadata log, manifest lists, manifests, data, deletes, statistics. */
  public static Set<String> reachable(Table table) {
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    Set<String> out = new TreeSet<>();
    out.add(meta.metadataFileLocation());
    meta.previousFiles().forEach(e -> out.add(e.file()));
    for (Snapshot s : meta.snapshots()) {
      out.addAll(Disk.reachableFrom(table, s));
    }
    meta.statisticsFiles().stream().map(StatisticsFile::path).forEach(out::add);
    meta.partitionStatisticsFiles().stream().map(PartitionStatisticsFile::path).forEach(out::add);
    return out;
  }

  /**
   * Runs remove-orphans with the age guard effectively off (a clock an hour ahead, older-than 0s)
   * and checks that exactly the reachable files remain under the table's location.
   */
  public static void sweepLeavesExactlyTheReachableFiles(Catalog catalog, TableIdentifier id) {
    Table table = catalog.loadTable(id);
    OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, id, table).olderThan(Duration.ZERO),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
        .execute();
    table.refresh();
    Set<Path> expected = new TreeSet<>();
    for (String f : reachable(table)) {
      expected.add(Disk.path(f).toAbsolutePath());
    }
    assertThat(Disk.files(table))
        .as("storage after the sweep is exactly the reachable set")
        .isEqualTo(expected);
    CHECKED.incrementAndGet();
  }
}
