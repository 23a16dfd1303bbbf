package dev.resurfacer.cli;

import dev.resurfacer.maintain.ConvertEqualityDeletes;
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
    return runLocally(tableName, new ConvertEqualityDeletes(), act.yes);
  }
}
