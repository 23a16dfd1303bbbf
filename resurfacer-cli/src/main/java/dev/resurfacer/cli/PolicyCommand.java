package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.policy.EffectivePolicy;
import dev.resurfacer.policy.TablePolicy;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "policy",
    footer = {"%nExamples:", "  resurfacer policy shop.orders", "  resurfacer policy shop.orders --config prod.yml --output json"}, description = {
    "Print the effective maintenance policy of a table: built-in defaults, then defaults:, then every",
    "matching tables: entry of resurfacer.yml from least to most specific. Reads only the configuration."})
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
    PrintWriter out = spec.commandLine().getOut();
    out.println(outputOptions.json() ? Json.write(json(p)) : render(p));
    out.flush();
    return Main.OK;
  }

  static Map<String, Object> json(EffectivePolicy e) {
    TablePolicy p = e.policy();
    Map<String, Object> ops = new LinkedHashMap<>();
    Map<String, Object> compact = new LinkedHashMap<>();
    compact.put("enabled", p.compact().enabled());
    compact.put("strategy", p.compact().strategy());
    compact.put("order", p.compact().orderBy());
    compact.put("options", new java.util.TreeMap<>(p.compact().options()));
    ops.put("apply-retention", Map.of("enabled", p.applyRetention().enabled(), "keep", p.applyRetention().keep(),
        "delete-after-commit", p.applyRetention().deleteAfterCommit()));
    ops.put("condense", Map.of("enabled", p.condense().enabled(), "to", p.condense().to(), "older-than", duration(p.condense().olderThan())));
    ops.put("compact", compact);
    ops.put("remove-dangling-deletes", Map.of("enabled", p.removeDanglingDeletes().enabled()));
    ops.put("convert-equality-deletes", Map.of("enabled", p.convertEqualityDeletes().enabled()));
    ops.put("rewrite-position-deletes", Map.of("enabled", p.rewritePositionDeletes().enabled(),
        "options", new java.util.TreeMap<>(p.rewritePositionDeletes().options())));
    ops.put("rewrite-manifests", Map.of("enabled", p.rewriteManifests().enabled()));
    ops.put("compute-stats", Map.of("enabled", p.computeStats().enabled(), "columns", p.computeStats().columns()));
    ops.put("compute-partition-stats", Map.of("enabled", p.computePartitionStats().enabled()));
    Map<String, Object> expire = new LinkedHashMap<>();
    expire.put("enabled", p.expire().enabled());
    expire.put("older-than", duration(p.expire().olderThan()));
    expire.put("retain-last", p.expire().retainLast());
    ops.put("expire", expire);
    Map<String, Object> orphans = new LinkedHashMap<>();
    orphans.put("enabled", p.removeOrphans().enabled());
    orphans.put("older-than", duration(p.removeOrphans().olderThan()));
    orphans.put("quarantine", p.removeOrphans().quarantine());
    orphans.put("quarantine-retention", duration(p.removeOrphans().quarantineRetention()));
    ops.put("remove-orphans", orphans);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("table", e.table());
    out.put("matched", e.matched());
    out.put("operations", ops);
    return out;
  }

  static String render(EffectivePolicy e) {
    TablePolicy p = e.policy();
    StringBuilder b = new StringBuilder();
    b.append(e.table()).append("  matched: ").append(e.matched().isEmpty() ? "(defaults only)" : String.join(", ", e.matched()))
        .append("  (operations run in this order)\n");
    b.append(line("apply-retention", p.applyRetention().enabled(), "keep " + p.applyRetention().keep()
        + (p.applyRetention().deleteAfterCommit() ? ", delete after commit" : ", keep trimmed files")));
    b.append(line("condense", p.condense().enabled(), "to " + p.condense().to() + ", older-than " + Durations.format(p.condense().olderThan())));
    b.append(line("compact", p.compact().enabled(), "strategy " + p.compact().strategy()
        + (p.compact().orderBy() == null ? "" : " (" + p.compact().orderBy() + ")")
        + (p.compact().options().isEmpty() ? ", Spark's option defaults" : ", " + new java.util.TreeMap<>(p.compact().options()))));
    b.append(line("remove-dangling-deletes", p.removeDanglingDeletes().enabled(), ""));
    b.append(line("convert-equality-deletes", p.convertEqualityDeletes().enabled(), ""));
    b.append(line("rewrite-position-deletes", p.rewritePositionDeletes().enabled(),
        p.rewritePositionDeletes().options().isEmpty() ? "" : new java.util.TreeMap<>(p.rewritePositionDeletes().options()).toString()));
    b.append(line("rewrite-manifests", p.rewriteManifests().enabled(), ""));
    b.append(line("compute-stats", p.computeStats().enabled(),
        p.computeStats().columns().isEmpty() ? "every primitive column" : String.join(", ", p.computeStats().columns())));
    b.append(line("compute-partition-stats", p.computePartitionStats().enabled(), ""));
    b.append(line("expire", p.expire().enabled(), "older-than "
        + (p.expire().olderThan() == null ? "table property (history.expire.max-snapshot-age-ms)" : Durations.format(p.expire().olderThan()))
        + ", retain-last " + (p.expire().retainLast() == null ? "table property (history.expire.min-snapshots-to-keep)" : p.expire().retainLast())));
    b.append(line("remove-orphans", p.removeOrphans().enabled(), "older-than " + Durations.format(p.removeOrphans().olderThan())
        + (p.removeOrphans().quarantine()
            ? ", quarantine (purged after " + Durations.format(p.removeOrphans().quarantineRetention()) + ")" : "")));
    return b.toString().stripTrailing();
  }

  private static String line(String op, boolean enabled, String detail) {
    return String.format("  %-24s %-8s %s%n", op, enabled ? "enabled" : "disabled", enabled ? detail : "");
  }

  private static String duration(Duration d) {
    return d == null ? null : Durations.format(d);
  }
}
