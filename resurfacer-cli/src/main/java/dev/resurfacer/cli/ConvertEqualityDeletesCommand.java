package dev.resurfacer.cli;

import dev.resurfacer.maintain.ConvertEqualityDeletes;
import picocli.CommandLine.Command;

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
final class ConvertEqualityDeletesCommand extends IcebergVerbCommand {
  ConvertEqualityDeletesCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(new ConvertEqualityDeletes());
  }
}
