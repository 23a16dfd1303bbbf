package dev.resurfacer.cli;

import dev.resurfacer.maintain.RewriteManifests;
import picocli.CommandLine.Command;

@Command(
    name = "rewrite-manifests",
    footer = {
      "%nExamples:",
      "  resurfacer rewrite-manifests shop.orders",
      "  resurfacer rewrite-manifests shop.orders --yes",
      "  resurfacer rewrite-manifests shop.orders --sort-by day --yes"
    },
    description = {
      "Regroup data manifests by partition (Iceberg core RewriteManifests), honouring commit.manifest.target-size-bytes.",
      "Metadata only: data files, snapshot ids and sequence numbers are kept."
    })
final class RewriteManifestsCommand extends EngineVerbCommand {
  @picocli.CommandLine.Option(
      names = "--sort-by",
      split = ",",
      paramLabel = "FIELD",
      description =
          "Cluster manifests by these partition fields, in order (default: the whole partition).")
  java.util.List<String> sortBy = new java.util.ArrayList<>();

  RewriteManifestsCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    RewriteManifests rewrite = new RewriteManifests(sortBy);
    // a --sort-by the engine has no argument for is refused by the route, before connecting
    return runOnResolvedEngine(rewrite);
  }
}
