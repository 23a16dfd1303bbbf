package dev.resurfacer.cli;

import dev.resurfacer.iceberg.deletes.EqualityDeleteConversion;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "convert-equality-deletes",
    footer = {"%nExamples:", "  resurfacer convert-equality-deletes shop.orders", "  resurfacer convert-equality-deletes shop.orders --yes"}, description = {
    "Resolve equality deletes against the data files they apply to and replace them with deletion vectors (format v3)",
    "or position deletes (v2), so readers stop joining them at query time. Data files are not rewritten.",
    "Previews unless --yes is given."})
final class ConvertEqualityDeletesCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  ConvertEqualityDeletesCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      EqualityDeleteConversion.Result r = EqualityDeleteConversion.run(open.table(), act.yes);
      PrintWriter out = spec.commandLine().getOut();
      if (outputOptions.json()) {
        out.println(Json.write(r));
      } else if (r.equalityDeleteFiles() == 0) {
        out.println("no equality-delete files in " + r.table());
      } else {
        out.printf(Locale.ROOT, "%s: %d equality-delete files resolved against %d data files: %d deleted rows -> %s%n", r.table(),
            r.equalityDeleteFiles(), r.dataFiles(), r.deletedRows(), r.deletionVectors() ? "deletion vectors" : "position deletes");
        out.println(r.committed() ? "wrote " + r.writtenDeleteFiles() + " delete files in snapshot " + r.snapshotId()
            : "preview only: nothing was changed (run with --yes to convert)");
      }
      out.flush();
      return Main.OK;
    }
  }
}
