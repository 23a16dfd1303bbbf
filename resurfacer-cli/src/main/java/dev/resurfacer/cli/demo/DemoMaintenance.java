package dev.resurfacer.cli.demo;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DanglingDeletesResult;
import dev.resurfacer.iceberg.demo.ShopDemo;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.retention.MetadataRetention;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The maintenance the demo runs, in the order {@code maintain} uses. The demo's history is minutes
 * old, so expiry keeps only the last snapshot (a production policy keeps days); orphan removal is
 * left out because its 3-day age guard rightly protects files this young.
 */
final class DemoMaintenance {
  private DemoMaintenance() {}

  static void run(ShopDemo demo, PrintWriter out) {
    String name = ShopDemo.ORDERS.toString();
    // the demo's days are small; every partition with two or more files is worth one file
    CompactionResult c = Compaction.execute(Compaction.plan(
        demo.table(), CompactionOptions.defaults().withOption("min-input-files", "2")));
    out.printf(
        Locale.ROOT,
        "compact: %d groups, %d files (%s) -> %d files (%s), %d delete files applied, %d rows, %.1fs%n",
        c.groups().size(),
        c.rewrittenFiles(),
        ByteSizes.format(c.rewrittenBytes()),
        c.addedFiles(),
        ByteSizes.format(c.addedBytes()),
        c.deleteFilesApplied(),
        c.rows(),
        c.millis() / 1000.0);
    c.groups().stream()
        .filter(g -> g.status() != CompactionResult.Status.COMMITTED)
        .forEach(
            g -> out.println("  group " + g.partition() + " " + g.status() + ": " + g.message()));

    DanglingDeletesResult d = DanglingDeletes.execute(DanglingDeletes.plan(name, demo.table()));
    out.printf(
        Locale.ROOT,
        "remove-dangling-deletes: %d delete files no longer apply to any row, removed%n",
        d.files());

    ManifestRewriteResult m = ManifestRewriter.execute(ManifestRewriter.plan(name, demo.table()));
    out.printf(
        Locale.ROOT,
        "rewrite-manifests: %d data manifests -> %d%n",
        m.dataManifestsBefore(),
        m.committed() ? m.dataManifestsAfter() : m.dataManifestsBefore());

    MetadataRetention.Result r =
        MetadataRetention.execute(MetadataRetention.plan(demo.table(), 10, true));
    out.printf(
        Locale.ROOT,
        "apply-retention: keep 10 metadata.json versions and delete older ones on commit (%d in the log)%n",
        r.metadataInLog());

    ExpireResult e = SnapshotExpiry.execute(SnapshotExpiry.plan(
        name, demo.table(), new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
    out.printf(
        Locale.ROOT,
        "expire (keep the last snapshot): %d snapshots expired, %d files (%s) deleted%n",
        e.snapshots().size(),
        e.files(),
        ByteSizes.format(e.bytes()));
    out.println(
        "remove-orphans: skipped in the demo (its 3-day age guard protects files this young)");
    MetadataRetention.Result left =
        MetadataRetention.plan(demo.table(), 10, true).preview();
    if (left.strandedFiles() > 0) {
      out.println(strandedExplained(name, left.strandedFiles(), left.strandedBytes()));
    }
    out.flush();
  }

  /** What describe will call stranded metadata.json, said before it does: why those files are still there and what sweeps them. */
  static String strandedExplained(String table, int files, long bytes) {
    return String.format(
        Locale.ROOT,
        "stranded metadata: %d old metadata.json file(s) (%s) stay on disk. They left the table's "
            + "metadata log before delete-after-commit was on, so no commit deletes them and nothing references them; "
            + "'resurfacer remove-orphans %s --yes' sweeps them once they are older than its age guard (3 days, or --older-than).",
        files,
        ByteSizes.format(bytes),
        table);
  }
}
