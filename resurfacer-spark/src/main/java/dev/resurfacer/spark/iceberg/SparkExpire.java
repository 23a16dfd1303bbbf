package dev.resurfacer.spark.iceberg;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.expire.Spellings;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;

/**
 * Expiry on the cluster: our preview (Iceberg core's own selection plus our reachability by stored-file
 * identity) picks the snapshots; Iceberg's {@code expire_snapshots} is then called with that explicit
 * cutoff, retain count and those snapshot ids, so it expires exactly the previewed snapshots. Spark
 * deletes the files itself, comparing location strings; that equals our identity-based choice only
 * when no file is referenced under two spellings, so such a table is refused (run it with the local
 * engine, whose deletes compare identities).
 */
final class SparkExpire extends SparkIcebergExecutor<ExpireSnapshots> {
  SparkExpire(SparkIceberg spark) {
    super(spark);
  }

  @Override
  public Step execute(ExpireSnapshots op, IcebergTable t, Mode mode) {
    ExpireResult p = SnapshotExpiry.plan(
            t.name(),
            t.table(),
            new ExpireOptions(op.olderThan(), op.retainLast(), List.of(), false),
            t.otherTables(spark.fences()))
        .preview();
    Map<String, Long> planned = Map.of(
        "expired_snapshots",
        (long) p.snapshots().size(),
        "deleted_files",
        p.files(),
        "deleted_bytes",
        p.bytes());
    String rule =
        (op.olderThan() == null ? "the table's max age" : Durations.format(op.olderThan()))
            + ", keeping " + p.retainLast();
    if (p.snapshots().isEmpty()) {
      return Step.nothingToDo("no snapshot is past its retention (" + rule + ")", planned);
    }
    String what = p.snapshots().size() + " snapshot(s) and " + p.files() + " file(s) ("
        + ByteSizes.format(p.bytes()) + ")";
    List<String> conflicts = Spellings.conflicts(t.table(), 3);
    if (!conflicts.isEmpty()) {
      throw new SafetyRefusal(
          "expire on spark: the table names a file under two spellings ("
              + String.join("; ", conflicts)
              + "); Spark's expiry compares location strings and could delete a kept file; run it with --engine local");
    }
    if (mode == Mode.PREVIEW) {
      return previewed("would expire " + what, planned);
    }
    SparkTable table = spark.table(t);
    StringBuilder ids = new StringBuilder();
    for (ExpireResult.ExpiredSnapshot s : p.snapshots()) {
      ids.append(ids.isEmpty() ? "" : ", ").append(s.snapshotId()).append('L');
    }
    String statement = table.call(
        "expire_snapshots",
        "older_than => TIMESTAMP_MILLIS(" + p.cutoffMillis() + ")",
        "retain_last => " + p.retainLast(),
        "snapshot_ids => array(" + ids + ")");
    Map<String, Object> r = callOne(t, "expire", statement);
    long deleted = 0;
    Map<String, Long> m = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : r.entrySet()) {
      long n = SparkIceberg.asLong(e.getValue());
      m.put(e.getKey(), n);
      deleted += n;
    }
    t.table().refresh();
    Set<Long> left = new HashSet<>();
    for (Snapshot s : t.table().snapshots()) {
      left.add(s.snapshotId());
    }
    long expired =
        p.snapshots().stream().filter(s -> !left.contains(s.snapshotId())).count();
    m.put("expired_snapshots", expired);
    m.put("planned_files", p.files());
    m.put("deleted_files", deleted);
    if (expired != p.snapshots().size()) {
      throw new IllegalStateException("spark expired " + expired + " of the "
          + p.snapshots().size() + " previewed snapshot(s)");
    }
    return Step.done(
        "spark expired " + expired + " snapshot(s) and deleted " + deleted + " file(s)"
            + (deleted == p.files() ? "" : " (the preview named " + p.files() + ")"),
        m);
  }
}
