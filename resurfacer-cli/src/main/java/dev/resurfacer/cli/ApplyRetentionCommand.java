package dev.resurfacer.cli;

import dev.resurfacer.maintain.ApplyRetention;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "apply-retention",
    footer = {
      "%nExamples:",
      "  resurfacer apply-retention shop.orders",
      "  resurfacer apply-retention shop.orders --keep 20 --yes"
    },
    description = {
      "Set metadata.json retention (write.metadata.previous-versions-max, delete-after-commit) and report stranded metadata files.",
      "Previews unless --yes is given; remove-orphans sweeps files that are already stranded."
    })
final class ApplyRetentionCommand extends IcebergVerbCommand {
  @Option(
      names = "--keep",
      paramLabel = "N",
      description =
          "metadata.json versions to keep in the log (default ${DEFAULT-VALUE}, Iceberg's default).",
      defaultValue = "100")
  int keep;

  @Option(
      names = "--no-delete-after-commit",
      description =
          "Only trim the log; leave trimmed files on disk (not recommended: they become orphans).")
  boolean noDelete;

  ApplyRetentionCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    if (keep < 1) {
      throw new dev.resurfacer.UsageException("--keep must be at least 1 (got " + keep + ")");
    }
    return runLocally(new ApplyRetention(keep, !noDelete));
  }
}
