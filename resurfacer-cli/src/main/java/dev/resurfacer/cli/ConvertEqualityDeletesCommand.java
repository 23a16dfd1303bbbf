package dev.resurfacer.cli;

import dev.resurfacer.iceberg.deletes.EqualityDeleteConversion;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "convert-equality-deletes",
    footer = {
      "%nExamples:",
      "  resurfacer convert-equality-deletes shop.orders",
      "  resurfacer convert-equality-deletes shop.orders --yes"
    },
    description = {
      "Resolve equality deletes against the data files they apply to and replace them with deletion vectors (format v3)",
      "or position deletes (v2), so readers stop joining them at query time. Data files are not rewritten.",
      "Previews unless --yes is given."
    })
final class ConvertEqualityDeletesCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  ConvertEqualityDeletesCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      EqualityDeleteConversion.Plan plan = EqualityDeleteConversion.plan(open.table());
      EqualityDeleteConversion.Result r =
          act.yes ? EqualityDeleteConversion.execute(plan) : plan.preview();
      print(r, out -> {
        if (r.equalityDeleteFiles() == 0) {
          out.println("no equality-delete files in " + r.table());
        } else {
          out.printf(
              Locale.ROOT,
              "%s: %d equality-delete files resolved against %d data files: %d deleted rows -> %s%n",
              r.table(),
              r.equalityDeleteFiles(),
              r.dataFiles(),
              r.deletedRows(),
              r.deletionVectors() ? "deletion vectors" : "position deletes");
          out.println(
              r.committed()
                  ? "wrote " + r.writtenDeleteFiles() + " delete files in snapshot "
                      + r.snapshotId()
                  : "preview only: nothing was changed (run with --yes to convert)");
        }
      });
      return Main.OK;
    }
  }
}
