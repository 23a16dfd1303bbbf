package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Expiry as Trino's {@code ALTER TABLE … EXECUTE expire_snapshots(retention_threshold => …)}. Trino
 * runs Iceberg core's expiry, which keeps the table's {@code history.expire.min-snapshots-to-keep}
 * and has no retain-last argument, so a different {@code --retain-last} is refused. Our preview is
 * the same Iceberg core computation and runs first in both modes, so our fences (aged tags and
 * branches are never dropped without {@code --expire-refs}) hold before Trino is asked; after Trino
 * commits, the snapshots it expired must be among those we previewed. Trino's cutoff comes from its
 * own clock, so the threshold passed is widened by the time since our preview and by how far Trino's
 * clock may be ahead ({@link TrinoClock}).
 */
record TrinoExpire(TrinoStatements trino)
    implements OperationExecutor.Body<ExpireSnapshots, IcebergTable> {
  @Override
  public Step execute(ExpireSnapshots op, IcebergTable t, Mode mode) {
    Table table = t.table();
    table.refresh();
    int keep = PropertyUtil.propertyAsInt(
        table.properties(),
        TableProperties.MIN_SNAPSHOTS_TO_KEEP,
        TableProperties.MIN_SNAPSHOTS_TO_KEEP_DEFAULT);
    if (op.retainLast() != null && op.retainLast() != keep) {
      throw new SafetyRefusal("Trino's expire_snapshots has no retain-last: it keeps the table's "
          + TableProperties.MIN_SNAPSHOTS_TO_KEEP + " (" + keep + "), not " + op.retainLast()
          + "; set that table property or use --engine local");
    }
    Duration olderThan = op.olderThan() != null
        ? op.olderThan()
        : Duration.ofMillis(PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.MAX_SNAPSHOT_AGE_MS,
            TableProperties.MAX_SNAPSHOT_AGE_MS_DEFAULT));
    TrinoFloors.EXPIRE_SNAPSHOTS.check(trino, olderThan);
    ExpireResult preview = SnapshotExpiry.plan(
            t.name(),
            table,
            new ExpireOptions(olderThan, keep, List.of(), false),
            t.otherTables(null))
        .preview();
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("expired_snapshots", (long) preview.snapshots().size());
    metrics.put("deleted_files", preview.files());
    metrics.put("deleted_bytes", preview.bytes());
    String rule = Durations.format(olderThan) + ", keeping " + keep;
    if (preview.snapshots().isEmpty()) {
      return Step.nothingToDo("no snapshot is past its retention (" + rule + ")", metrics);
    }
    String what = preview.snapshots().size() + " snapshot(s) and " + preview.files() + " file(s) ("
        + ByteSizes.format(preview.bytes()) + ")";
    List<String> conflicts = dev.resurfacer.iceberg.expire.Spellings.conflicts(table, 3);
    if (!conflicts.isEmpty()) {
      throw new SafetyRefusal(
          "expire on trino: the table names a file under two spellings ("
              + String.join("; ", conflicts)
              + "); Trino's expiry compares location strings and could delete a kept file; run it with --engine local");
    }
    TrinoClock clock = TrinoClock.measure(trino, "expire_snapshots");
    if (mode == Mode.PREVIEW) {
      return Step.previewed("Trino's expire_snapshots would expire " + what, metrics);
    }
    Set<Long> before = snapshotIds(table);
    // Trino's cutoff is its own clock minus the threshold: never later than the one we previewed
    trino.executeWithRetention(
        trino.name(t.identifier()), "expire_snapshots", clock.threshold(preview.cutoffMillis()));
    table.refresh();
    Set<Long> expired = new HashSet<>(before);
    expired.removeAll(snapshotIds(table));
    Set<Long> previewed = new HashSet<>();
    preview.snapshots().forEach(s -> previewed.add(s.snapshotId()));
    if (!previewed.containsAll(expired)) {
      Set<Long> extra = new HashSet<>(expired);
      extra.removeAll(previewed);
      throw new IllegalStateException(
          "Trino expired snapshot(s) " + extra + " that our preview kept");
    }
    metrics.put("expired_snapshots", (long) expired.size());
    return Step.done(
        "Trino's expire_snapshots expired " + expired.size() + " snapshot(s) (previewed: " + what
            + ")",
        metrics);
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    for (Snapshot s : table.snapshots()) {
      ids.add(s.snapshotId());
    }
    return ids;
  }
}
