package dev.resurfacer.cli;

import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

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
final class RewriteManifestsCommand extends TableCommand {
  @Mixin
  ActOptions actOptions;

  @Mixin
  EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

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
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      // a --sort-by the engine has no argument for is refused by the route, before connecting
      return EngineRoute.run(
          spec,
          ctx,
          catalogOptions,
          outputOptions,
          engine,
          tableName,
          new dev.resurfacer.maintain.RewriteManifests(sortBy),
          actOptions.yes);
    }
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      ManifestRewriter.Plan plan = ManifestRewriter.plan(tableName, open.table(), sortBy);
      ManifestRewriteResult result =
          actOptions.yes ? ManifestRewriter.execute(plan) : plan.preview();
      print(result, out -> out.println(render(result, actOptions.yes)));
      return Main.OK;
    }
  }

  static String render(ManifestRewriteResult r, boolean asked) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(
        Locale.ROOT,
        "%s: %d data manifest(s), %s, holding %d live data file(s) in %d partition(s); %d delete manifest(s) kept%n",
        r.table(),
        r.dataManifestsBefore(),
        ByteSizes.format(r.dataManifestBytesBefore()),
        r.liveDataFiles(),
        r.partitions(),
        r.deleteManifests()));
    if (r.committed()) {
      b.append(String.format(
          Locale.ROOT,
          "rewrote into %d data manifest(s), %s (snapshot %d)%n",
          r.dataManifestsAfter(),
          ByteSizes.format(r.dataManifestBytesAfter()),
          r.snapshotId()));
    } else if (r.notNeeded().isPresent()) {
      b.append("nothing to do: ").append(r.notNeeded().get()).append('\n');
    } else {
      b.append(String.format(
          Locale.ROOT,
          "would rewrite into about %d data manifest(s) (target %s each)%n",
          r.expectedDataManifests(),
          ByteSizes.format(r.targetManifestBytes())));
      if (!asked) {
        b.append("preview only: nothing was changed (pass --yes to rewrite)\n");
      }
    }
    return b.toString().stripTrailing();
  }
}
