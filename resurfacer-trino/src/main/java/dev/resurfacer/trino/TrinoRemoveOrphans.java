package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Orphan removal as Trino's {@code ALTER TABLE … EXECUTE remove_orphan_files(retention_threshold => …)},
 * which has no dry run. It runs only when our own removal — every fence: scope, neighbours,
 * protected files, missing references — plans to delete every file Trino could delete
 * ({@link TrinoOrphanRule}); otherwise it is refused with the files that differ, in preview as in
 * commit. Trino's cutoff is never later than ours: the threshold passed is the age guard plus the
 * time since our cutoff was fixed plus how far Trino's clock may be ahead ({@link TrinoClock}), so a
 * file that became old enough while we compared stays.
 *
 * @param fences what our removal respects beyond the table; null for the table's own catalog
 */
record TrinoRemoveOrphans(TrinoStatements trino, StorageFences fences)
    implements OperationExecutor.Body<RemoveOrphans, IcebergTable> {
  private static final int SHOWN = 5;

  @Override
  public Step execute(RemoveOrphans op, IcebergTable t, Mode mode) {
    if (op.listing() != null) {
      throw new dev.resurfacer.UsageException(
          "remove-orphans.listing is read by the local engine only; Trino's remove_orphan_files"
              + " lists storage itself");
    }
    if (op.quarantine()) {
      throw new SafetyRefusal(
          "Trino's remove_orphan_files deletes and cannot quarantine; --quarantine needs --engine local");
    }
    TrinoFloors.REMOVE_ORPHAN_FILES.check(trino, op.olderThan());
    OrphanRemoval removal = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
        .olderThan(op.olderThan())
        .show(Integer.MAX_VALUE);
    StorageFences runFences = t.fencesOr(fences);
    if (runFences != null) {
      removal = removal.fences(runFences);
    }
    OrphanReport ours = removal.plan();
    if (ours.orphansTruncated()) {
      throw new SafetyRefusal(
          "too many orphan candidates to compare with what Trino's remove_orphan_files would delete; use --engine local");
    }
    Set<String> ourKeys = ours.orphans().stream()
        .map(o -> StoredFile.parse(o.location()).key())
        .collect(Collectors.toSet());
    List<String> trinos = TrinoOrphanRule.candidates(t.table(), ours.guard().cutoffMillis());
    List<String> refused = trinos.stream()
        .filter(l -> !ourKeys.contains(StoredFile.parse(l).key()))
        .toList();
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("listed_files", ours.census().listed().files());
    metrics.put("orphan_files", ours.census().orphans().files());
    metrics.put("orphan_bytes", ours.census().orphans().bytes());
    metrics.put("trino_candidates", (long) trinos.size());
    if (!refused.isEmpty()) {
      throw new SafetyRefusal(
          "Trino's remove_orphan_files would delete " + refused.size()
              + " file(s) our fences keep, e.g. "
              + refused.stream().limit(SHOWN).collect(Collectors.joining(", "))
              + " (Trino matches by file name under the whole table location and has no dry run); use --engine local");
    }
    if (trinos.isEmpty()) {
      return Step.nothingToDo(
          "no orphan files older than " + Durations.format(op.olderThan())
              + " that Trino would delete (" + ours.census().orphans().files()
              + " by our own rule)",
          metrics);
    }
    String what = trinos.size() + " file(s)";
    TrinoClock clock = TrinoClock.measure(trino, "remove_orphan_files");
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "Trino's remove_orphan_files would delete " + what
              + ", each one our fences also find orphaned ("
              + ours.census().orphans().files() + " orphan file(s), "
              + ByteSizes.format(ours.census().orphans().bytes()) + ", by our own rule)",
          metrics);
    }
    long threshold = clock.threshold(ours.guard().cutoffMillis());
    Set<String> before = listed(t);
    trino.executeWithRetention(trino.name(t.identifier()), "remove_orphan_files", threshold);
    Set<String> gone = new HashSet<>(before);
    gone.removeAll(listed(t));
    Set<String> unexpected =
        gone.stream().filter(k -> !ourKeys.contains(k)).collect(Collectors.toSet());
    if (!unexpected.isEmpty()) {
      throw new IllegalStateException("Trino's remove_orphan_files deleted " + unexpected.size()
          + " file(s) we did not expect, e.g. "
          + unexpected.stream().sorted().limit(SHOWN).collect(Collectors.joining(", ")));
    }
    metrics.put("deleted_files", (long) gone.size());
    return Step.done(
        "Trino's remove_orphan_files deleted " + gone.size()
            + " file(s); every one was an orphan by our own fences",
        metrics);
  }

  private static Set<String> listed(IcebergTable t) {
    return TrinoOrphanRule.listing(t.table()).stream()
        .map(f -> StoredFile.parse(f.location()).key())
        .collect(Collectors.toSet());
  }
}
