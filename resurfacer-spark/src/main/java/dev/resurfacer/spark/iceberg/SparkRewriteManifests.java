package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import java.util.Map;

/** Manifests regrouped on the cluster by Iceberg's {@code rewrite_manifests}; our preview decides whether it is needed; content checked before/after. */
final class SparkRewriteManifests extends SparkIcebergExecutor<RewriteManifests> {
  SparkRewriteManifests(SparkIceberg spark) {
    super(spark);
  }

  @Override
  public Step execute(RewriteManifests op, IcebergTable t, Mode mode) {
    ManifestRewriteResult p = ManifestRewriter.plan(t.name(), t.table()).preview();
    Map<String, Long> planned = Map.of(
        "data_manifests_before", (long) p.dataManifestsBefore(), "data_manifests_after", (long)
            p.expectedDataManifests());
    if (p.notNeeded().isPresent()) {
      return Step.nothingToDo(p.notNeeded().get(), planned);
    }
    if (mode == Mode.PREVIEW) {
      return previewed(
          "would rewrite " + p.dataManifestsBefore() + " data manifest(s) into about "
              + p.expectedDataManifests(),
          planned);
    }
    SparkTable table = spark.table(t);
    long before = t.table().currentSnapshot().snapshotId();
    String statement = table.call("rewrite_manifests");
    Map<String, Object> r = callOne(t, "rewrite-manifests", statement);
    long rewritten = SparkIceberg.asLong(r.get("rewritten_manifests_count"));
    long added = SparkIceberg.asLong(r.get("added_manifests_count"));
    t.table().refresh();
    long after = t.table().currentSnapshot().snapshotId();
    if (after == before) {
      return Step.nothingToDo(
          "spark's rewrite_manifests committed nothing",
          Map.of("data_manifests_before", (long) p.dataManifestsBefore()));
    }
    String verified = verify(table, t, before, after);
    return Step.done(
        "spark rewrote " + rewritten + " manifest(s) into " + added + ", verified: " + verified,
        Map.of(
            "data_manifests_before",
            (long) p.dataManifestsBefore(),
            "rewritten_manifests",
            rewritten,
            "added_manifests",
            added));
  }
}
