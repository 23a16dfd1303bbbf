package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.formats.Format;
import dev.resurfacer.policy.EffectivePolicy;
import dev.resurfacer.policy.PolicyDocument;
import dev.resurfacer.policy.Triggers;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "policy",
    footer = {"%nExamples:", "  resurfacer policy shop.orders", "  resurfacer policy shop.orders --config prod.yml --output json"}, description = {
    "Print the effective maintenance policy of a table: built-in defaults, then defaults:, then every",
    "matching tables: entry of resurfacer.yml from least to most specific, and its serve triggers (merged",
    "the same way, key by key). Reads only the configuration."})
final class PolicyCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  PolicyCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Catalogs.parseIdentifier(tableName);
    ResurfacerConfig config = new CatalogSelection(catalogOptions.configFile, null, null, null, null)
        .loadConfig(new Secrets(ctx.env()), ctx.workingDir(), ctx.home());
    EffectivePolicy p = config.policies().effective(tableName);
    Triggers triggers = config.policies().triggers(tableName);
    Format format = Format.of(config, tableName);
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(PolicyDocument.json(p, triggers, format)) : PolicyDocument.render(p, triggers, format));
    out.flush();
    return Main.OK;
  }
}
