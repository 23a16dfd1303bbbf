package dev.resurfacer.cli.demo;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.demo.ShopDemo;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;

/** The maintenance the demo runs: whatever operations this build has, in the order maintain uses. */
final class DemoMaintenance {
  private DemoMaintenance() {}

  static void run(ShopDemo demo, PrintWriter out) {
    // the demo's days are small; every partition with two or more files is worth one file
    CompactionOptions options = CompactionOptions.defaults().withOption("min-input-files", "2");
    CompactionResult r = Compaction.execute(demo.table(), options);
    out.printf(Locale.ROOT, "compact: %d groups, %d files (%s) -> %d files (%s), %d delete files applied, %d rows, %.1fs%n",
        r.groups().size(), r.rewrittenFiles(), ByteSizes.format(r.rewrittenBytes()), r.addedFiles(),
        ByteSizes.format(r.addedBytes()), r.deleteFilesApplied(), r.rows(), r.millis() / 1000.0);
    r.groups().stream().filter(g -> g.status() != CompactionResult.Status.COMMITTED)
        .forEach(g -> out.println("  group " + g.partition() + " " + g.status() + ": " + g.message()));
    out.println("not built yet: expiry, orphan removal and dangling-delete removal (see docs/features.md)");
    out.flush();
  }
}
