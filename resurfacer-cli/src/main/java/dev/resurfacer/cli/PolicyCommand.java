package dev.resurfacer.cli;

import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.formats.Format;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.policy.EffectivePolicy;
import dev.resurfacer.policy.PolicyDocument;
import dev.resurfacer.policy.Triggers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "policy",
    footer = {
      "%nExamples:",
      "  resurfacer policy shop.orders",
      "  resurfacer policy shop.orders --config prod.yml --output json"
    },
    description = {
      "Print the effective maintenance policy of a table: built-in defaults, then defaults:, then every",
      "matching tables: entry of resurfacer.yml from least to most specific, and its serve triggers (merged",
      "the same way, key by key). Reads only the configuration."
    })
final class PolicyCommand extends TableCommand {
  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  PolicyCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Catalogs.parseIdentifier(tableName);
    ResurfacerConfig config = catalogOptions.config(ctx);
    EffectivePolicy p = config.policies().effective(tableName);
    Triggers triggers = config.policies().triggers(tableName);
    Format format = Format.of(config, tableName);
    print(
        PolicyDocument.json(p, triggers, format),
        out -> out.println(PolicyDocument.render(p, triggers, format)));
    return Main.OK;
  }
}
