package dev.resurfacer.cli;

import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "upgrade",
    footer = {"%nExamples:", "  resurfacer upgrade shop.orders --format-version 3", "  resurfacer upgrade shop.orders --format-version 3 --yes"}, description = {
    "Move an Iceberg table to a newer format version (metadata only; no data file is rewritten).",
    "Previews the consequences unless --yes is given; a downgrade is refused."})
final class UpgradeCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(names = "--format-version", paramLabel = "N", required = true, description = "Target format version: 2 or 3.")
  Integer formatVersion;

  UpgradeCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      FormatUpgrade.Result r = FormatUpgrade.run(open.table(), formatVersion, act.yes);
      PrintWriter out = spec.commandLine().getOut();
      if (outputOptions.json()) {
        out.println(Json.write(r));
      } else if (!r.changes()) {
        out.println(r.table() + " is already format v" + r.fromVersion() + "; nothing to do");
      } else {
        out.println(r.table() + ": format v" + r.fromVersion() + " -> v" + r.toVersion());
        r.consequences().forEach(c -> out.println("  - " + c));
        out.println(r.committed() ? "upgraded " + r.table() + " to format v" + r.toVersion()
            : "preview only: nothing was changed (run with --yes to upgrade)");
      }
      out.flush();
      return Main.OK;
    }
  }
}
