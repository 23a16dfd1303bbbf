package dev.resurfacer.trino;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Manifest rewriting as Trino's {@code ALTER TABLE … EXECUTE optimize_manifests} (metadata only).
 * The preview is our own planner's count; Trino clusters manifests by partition in its own way, so
 * the result reports the manifests Trino wrote, and the rows are checked as after any rewrite.
 */
record TrinoRewriteManifests(TrinoStatements trino)
    implements OperationExecutor.Body<RewriteManifests, IcebergTable> {
  @Override
  public Step execute(RewriteManifests op, IcebergTable t, Mode mode) {
    Table table = t.table();
    ManifestRewriteResult plan = ManifestRewriter.plan(t.name(), table).preview();
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("data_manifests_before", (long) plan.dataManifestsBefore());
    if (plan.dataManifestsBefore() <= 1) {
      return Step.nothingToDo(
          plan.dataManifestsBefore() == 0
              ? "no data manifests"
              : "one data manifest: nothing to merge",
          metrics);
    }
    TrinoVerification.requireReadable(trino, t);
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "Trino's optimize_manifests would rewrite " + plan.dataManifestsBefore()
              + " data manifest(s)",
          metrics);
    }
    Snapshot before = table.currentSnapshot();
    trino.execute(
        "optimize_manifests",
        TrinoStatements.tableProcedure(trino.name(t.identifier()), "optimize_manifests"));
    table.refresh();
    Snapshot after = table.currentSnapshot();
    if (after.snapshotId() == before.snapshotId()) {
      return Step.nothingToDo("Trino's optimize_manifests committed nothing", metrics);
    }
    String verified = TrinoVerification.sameRows(trino, t, before.snapshotId(), after.snapshotId());
    long manifests = after.dataManifests(table.io()).size();
    metrics.put("data_manifests_after", manifests);
    return Step.done(
        "Trino's optimize_manifests rewrote " + plan.dataManifestsBefore()
            + " data manifest(s) into " + manifests + ", verified: " + verified,
        metrics);
  }
}
