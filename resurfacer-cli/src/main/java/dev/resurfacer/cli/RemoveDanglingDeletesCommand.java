package dev.resurfacer.cli;

import dev.resurfacer.maintain.RemoveDanglingDeletes;
import picocli.CommandLine.Command;

@Command(
    name = "remove-dangling-deletes",
    footer = {
      "%nExamples:",
      "  resurfacer remove-dangling-deletes shop.orders",
      "  resurfacer remove-dangling-deletes shop.orders --yes"
    },
    description = {
      "Remove delete files that no live data file can be affected by (metadata only).",
      "The files stay on storage until expire frees them."
    })
final class RemoveDanglingDeletesCommand extends EngineVerbCommand {
  RemoveDanglingDeletesCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    RemoveDanglingDeletes remove = new RemoveDanglingDeletes();
    return runOnResolvedEngine(remove);
  }
}
