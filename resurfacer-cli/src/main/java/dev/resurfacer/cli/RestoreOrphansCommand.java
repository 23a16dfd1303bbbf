package dev.resurfacer.cli;

import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.RestoreReport;
import dev.resurfacer.units.ByteSizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "restore-orphans",
    footer = {"%nExamples:", "  resurfacer restore-orphans shop.orders 20261130T051500123Z", "  resurfacer restore-orphans shop.orders 20261130T051500123Z --yes"},
    description = {"Put back the files a 'remove-orphans --quarantine' run moved to the table's quarantine.",
        "Previews unless --yes is given; a file whose original location is taken again is left in the quarantine",
        "and named (exit 1)."})
final class RestoreOrphansCommand extends TableCommand {
  @Mixin ActOptions actOptions;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Parameters(index = "1", paramLabel = "RUN-ID", description = "The run id remove-orphans --quarantine printed, e.g. 20261130T051500123Z")
  String runId;

  RestoreOrphansCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      RestoreReport r = OrphanRemoval.restore(open.table(), tableName, runId, actOptions.yes);
      print(r, out -> {
        out.println("restore-orphans " + r.table() + " " + r.runId() + (r.restored() ? "" : "  (preview: nothing moved; --yes restores)"));
        out.println((r.restored() ? "restored       " : "would restore  ") + r.files() + " files, " + ByteSizes.format(r.bytes()));
        if (r.alreadyBack() > 0) {
          out.println("already back   " + r.alreadyBack() + " files");
        }
        for (String c : r.conflicts()) {
          out.println("left held      " + c + " (its original location is taken)");
        }
      });
      return r.conflicts().isEmpty() ? Main.OK : Main.FAILED;
    }
  }
}
