package dev.resurfacer.cli;

import dev.resurfacer.iceberg.retention.MetadataRetention;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
final class ApplyRetentionCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

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
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      MetadataRetention.Plan plan = MetadataRetention.plan(open.table(), keep, !noDelete);
      MetadataRetention.Result r = act.yes ? MetadataRetention.execute(plan) : plan.preview();
      print(r, out -> {
        out.printf(
            Locale.ROOT,
            "%s: %d metadata.json in the log; %d stranded on disk (%s) for remove-orphans to sweep%n",
            r.table(),
            r.metadataInLog(),
            r.strandedFiles(),
            ByteSizes.format(r.strandedBytes()));
        out.println(
            r.propertiesToSet().isEmpty()
                ? "retention properties already set"
                : (r.committed() ? "set " : "would set ") + r.propertiesToSet());
        if (!act.yes && !r.propertiesToSet().isEmpty()) {
          out.println("preview only: nothing was changed (run with --yes to apply)");
        }
      });
      return Main.OK;
    }
  }
}
