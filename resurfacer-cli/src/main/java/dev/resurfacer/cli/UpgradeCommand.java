package dev.resurfacer.cli;

import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "upgrade",
    footer = {
      "%nExamples:",
      "  resurfacer upgrade shop.orders --format-version 3",
      "  resurfacer upgrade shop.orders --format-version 3 --yes"
    },
    description = {
      "Move an Iceberg table to a newer format version (metadata only; no data file is rewritten).",
      "Previews the consequences unless --yes is given; a downgrade is refused."
    })
final class UpgradeCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(
      names = "--format-version",
      paramLabel = "N",
      required = true,
      description = "Target format version: 2 or 3.")
  Integer formatVersion;

  UpgradeCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      FormatUpgrade.Plan plan = FormatUpgrade.plan(open.table(), formatVersion);
      FormatUpgrade.Result r = act.yes ? FormatUpgrade.execute(plan) : plan.preview();
      print(r, out -> {
        if (!r.changes()) {
          out.println(r.table() + " is already format v" + r.fromVersion() + "; nothing to do");
        } else {
          out.println(r.table() + ": format v" + r.fromVersion() + " -> v" + r.toVersion());
          r.consequences().forEach(c -> out.println("  - " + c));
          out.println(
              r.committed()
                  ? "upgraded " + r.table() + " to format v" + r.toVersion()
                  : "preview only: nothing was changed (run with --yes to upgrade)");
        }
      });
      return Main.OK;
    }
  }
}
