package dev.resurfacer.cli;

import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "expire",
    footer = {"%nExamples:", "  resurfacer expire shop.orders            # preview with the table's defaults", "  resurfacer expire shop.orders --older-than 7d --retain-last 10 --yes"}, description = {
    "Expire old snapshots and delete the files only they reference (Iceberg core ExpireSnapshots).",
    "Defaults come from the table: history.expire.max-snapshot-age-ms (5d) and history.expire.min-snapshots-to-keep (1).",
    "main is never expired; tags and branches are never dropped unless --expire-refs is given."})
final class ExpireCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin ActOptions actOptions;
  @Mixin EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(names = "--older-than", paramLabel = "AGE", description = "Expire snapshots older than this, e.g. 5d, 12h, 0s.")
  String olderThan;

  @Option(names = "--retain-last", paramLabel = "N", description = "Keep at least N snapshots per branch (at least 1).")
  Integer retainLast;

  @Option(names = "--expire-snapshot-id", paramLabel = "ID", description = "Also expire this snapshot (repeatable).")
  List<Long> snapshotIds = new ArrayList<>();

  @Option(names = "--expire-refs", description = "Allow dropping tags and branches past their max-ref-age.")
  boolean expireRefs;

  ExpireCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    // options are checked before the catalog is opened: a usage error changes and creates nothing
    Duration age = olderThan == null ? null : Durations.parse(olderThan);
    ExpireOptions options = new ExpireOptions(age, retainLast, snapshotIds, expireRefs);
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      if (!snapshotIds.isEmpty() || expireRefs) {
        throw new dev.resurfacer.UsageException("--expire-snapshot-id and --expire-refs run on the local engine only");
      }
      return EngineRoute.run(spec, ctx, catalogOptions, outputOptions, engine, tableName, new dev.resurfacer.maintain.ExpireSnapshots(age, retainLast), actOptions.yes);
    }
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      // every configured catalog's tables, of both formats: a file shared with one of them is not this expiry's to delete
      var others = new dev.resurfacer.iceberg.maintain.IcebergTable(open.catalog(), dev.resurfacer.iceberg.catalog.Catalogs.parseIdentifier(tableName),
          open.table(), tableName, catalogOptions.fences(ctx, open.config()).rereadEachRun()).otherTables(null);
      SnapshotExpiry.Plan plan = SnapshotExpiry.plan(tableName, open.table(), options, others);
      ExpireResult result = actOptions.yes
          ? SnapshotExpiry.execute(plan, ProgressDisplay.choose(ctx, outputOptions, false, spec.commandLine().getErr()))
          : plan.preview();
      PrintWriter out = spec.commandLine().getOut();
      out.println(outputOptions.json() ? Json.write(result) : render(result, outputOptions.verbose));
      out.flush();
      return Main.OK;
    }
  }

  static String render(ExpireResult r, boolean verbose) {
    StringBuilder b = new StringBuilder();
    String verb = r.committed() ? "expired" : "would expire";
    b.append(String.format(Locale.ROOT, "%s: %s %d snapshot(s) older than %s, keeping at least %d per branch%n",
        r.table(), verb, r.snapshots().size(), Instant.ofEpochMilli(r.cutoffMillis()), r.retainLast()));
    for (ExpireResult.ExpiredSnapshot s : r.snapshots()) {
      b.append(String.format(Locale.ROOT, "  snapshot %d  %s  %s%n", s.snapshotId(), Instant.ofEpochMilli(s.timestampMillis()), s.operation()));
    }
    if (!r.refsDropped().isEmpty()) {
      b.append(r.committed() ? "dropped refs: " : "would drop refs: ").append(String.join(", ", r.refsDropped())).append('\n');
    }
    b.append(String.format(Locale.ROOT, "%s %d file(s), %s%n", r.committed() ? "deleted" : "would delete", r.files(), ByteSizes.format(r.bytes())));
    r.byCategory().forEach((category, total) -> {
      if (total.files() > 0) {
        b.append(String.format(Locale.ROOT, "  %-21s %6d  %s%n", category.replace('_', ' '), total.files(), ByteSizes.format(total.bytes())));
      }
    });
    if (verbose || !r.committed()) {
      for (ExpireResult.ReclaimedFile f : r.fileList()) {
        b.append(String.format(Locale.ROOT, "  %-21s %s%n", f.category().replace('_', ' '), f.path()));
      }
    }
    if (!r.notDeleted().isEmpty()) {
      b.append(r.notDeleted().size()).append(" previewed file(s) are still on storage (remove-orphans sweeps them)\n");
    }
    if (!r.removedSpecIds().isEmpty() || !r.removedSchemaIds().isEmpty()) {
      b.append("removed unused partition specs ").append(r.removedSpecIds()).append(", schemas ").append(r.removedSchemaIds()).append('\n');
    }
    if (!r.committed()) {
      b.append("preview only: nothing was changed (pass --yes to expire)\n");
    }
    return b.toString().stripTrailing();
  }
}
