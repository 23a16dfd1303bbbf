package dev.resurfacer.spark.iceberg;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Orphan removal with the cluster's candidates and our fences: Iceberg's {@code remove_orphan_files}
 * runs as a dry run (Spark lists storage and computes reachability, deleting nothing); our own
 * removal then runs with every fence (stored-file identity, scope, neighbour tables, links, complete
 * listing, the age guard, the re-read before deleting) restricted to those candidates, and deletes
 * through the table's FileIO only the files both agree on. A candidate our fences refuse is kept
 * and counted.
 */
final class SparkRemoveOrphans extends SparkIcebergExecutor<RemoveOrphans> {
  SparkRemoveOrphans(SparkIceberg spark) {
    super(spark);
  }

  @Override
  public Step execute(RemoveOrphans op, IcebergTable t, Mode mode) {
    if (op.listing() != null) {
      throw new dev.resurfacer.UsageException(
          "remove-orphans.listing is read by the local engine only; Spark's remove_orphan_files"
              + " lists storage itself");
    }
    if (op.olderThan().compareTo(Duration.ofDays(1)) < 0) {
      throw new SafetyRefusal(
          "remove-orphans on spark: Iceberg's remove_orphan_files refuses an age guard under 24h (got "
              + Durations.format(op.olderThan()) + "); nothing was deleted");
    }
    SparkTable table = spark.table(t);
    long cutoff = System.currentTimeMillis() - op.olderThan().toMillis();
    String statement = table.call(
        "remove_orphan_files", "older_than => TIMESTAMP_MILLIS(" + cutoff + ")", "dry_run => true");
    logStatement(t, "remove-orphans", statement);
    List<String> candidates = new ArrayList<>();
    for (Map<String, Object> row : spark.sql().rows(statement)) {
      candidates.add(String.valueOf(row.get("orphan_file_location")));
    }
    OrphanRemoval removal = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
        .olderThan(op.olderThan())
        .show(0)
        .quarantine(op.quarantine())
        .quarantineRetention(op.quarantineRetention())
        .onlyAmong(candidates)
        .onWarning(
            w -> PROGRESS.warn("table={} operation=remove-orphans warning: {}", t.name(), w));
    StorageFences fences = t.fencesOr(spark.fences());
    if (fences != null) {
      removal = removal.fences(fences);
    }
    OrphanReport r = mode == Mode.COMMIT ? removal.execute() : removal.plan();
    long refused = Math.max(0, candidates.size() - r.census().orphans().files());
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("spark_candidates", (long) candidates.size());
    m.put("refused_by_fences", refused);
    m.put("listed_files", r.census().listed().files());
    m.put("orphan_files", r.census().orphans().files());
    m.put("orphan_bytes", r.census().orphans().bytes());
    m.put("deleted_files", r.removed().deleted().files());
    m.put("deleted_bytes", r.removed().deleted().bytes());
    m.put("quarantined_files", r.removed().quarantined().files());
    m.put("other_tables_checked", (long) r.fenced().otherTablesChecked());
    if (r.removed().failedDeletes() > 0) {
      throw new IllegalStateException(
          r.removed().failedDeletes() + " orphan file(s) could not be deleted");
    }
    String kept = refused == 0
        ? ""
        : "; " + refused + " of spark's " + candidates.size() + " candidate(s) kept by our fences";
    if (r.census().orphans().files() == 0) {
      return Step.nothingToDo(
          "no orphan files older than " + Durations.format(op.olderThan())
              + " that spark and our fences agree on" + " (spark proposed " + candidates.size()
              + ")",
          m);
    }
    String what = r.census().orphans().files() + " orphan file(s) ("
        + ByteSizes.format(r.census().orphans().bytes()) + ")";
    if (r.removed().quarantineRun() != null) {
      return Step.done("quarantined " + what + " as run " + r.removed().quarantineRun() + kept, m);
    }
    return r.deleted()
        ? Step.done("deleted " + what + " found by spark and checked by our fences" + kept, m)
        : Step.previewed(
            "would delete " + what + " found by spark and checked by our fences" + kept, m);
  }
}
