package dev.resurfacer.cli;

import dev.resurfacer.maintain.RewritePositionDeletes;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "rewrite-position-deletes",
    footer = {
      "%nExamples:",
      "  resurfacer rewrite-position-deletes shop.orders",
      "  resurfacer rewrite-position-deletes shop.orders --option min-input-files=2 --yes"
    },
    description = {
      "Format v2: compact small position-delete files per partition, dropping entries whose data file is gone.",
      "Format v3: turn position-delete files into deletion vectors, one per data file (data files are not rewritten).",
      "Previews unless --yes is given."
    })
final class RewritePositionDeletesCommand extends EngineVerbCommand {
  @Option(
      names = "--option",
      paramLabel = "KEY=VALUE",
      description =
          "Planner options by Spark's rewrite_position_delete_files names (min-input-files, rewrite-all, target-file-size-bytes, ...).")
  Map<String, String> options = new LinkedHashMap<>();

  RewritePositionDeletesCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    RewritePositionDeletes rewrite = new RewritePositionDeletes(options);
    return runOnResolvedEngine(rewrite);
  }
}
