package dev.resurfacer.cli;

import dev.resurfacer.progress.Progress;
import dev.resurfacer.UsageException;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.CompactionPlan;
import dev.resurfacer.delta.compact.CompactionResult;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.compact.DeltaWhere;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** {@code plan} and {@code compact} on a Delta table: bin-pack per partition, the two flags that apply to it. */
final class DeltaCompactionCli {
  private static final Set<String> APPLICABLE = Set.of("--target-file-size", "--delete-ratio-threshold", "--strategy", "--columns",
      "--where", "--runner", "--memory", "--min-partition-idle");

  private DeltaCompactionCli() {}

  static int run(CommandSpec spec, DeltaTable table, CompactionFlags flags, OutputOptions output, boolean act, Progress progress) {
    CommandSpec flagSpec = spec.mixins().get("flags");
    for (OptionSpec o : flagSpec.options()) {
      if (!APPLICABLE.contains(o.longestName()) && spec.commandLine().getParseResult().hasMatchedOption(o.longestName())) {
        throw new UsageException(o.longestName() + " does not apply to Delta tables (Delta compaction bin-packs or z-orders each "
            + "partition; it takes --target-file-size, --delete-ratio-threshold, --strategy binpack|zorder, --columns, --where, --runner, --memory, --min-partition-idle; each bin is its own commit)");
      }
    }
    String strategy = flags.strategy.toLowerCase(Locale.ROOT);
    if (!strategy.equals("binpack") && !strategy.equals("zorder")) {
      throw new UsageException("--strategy " + flags.strategy + " does not apply to Delta tables (binpack or zorder; Delta tables "
          + "have no declared sort order)");
    }
    if (strategy.equals("zorder") == flags.columns.isEmpty()) {
      throw new UsageException(strategy.equals("zorder") ? "--strategy zorder needs --columns a,b" : "--columns needs --strategy zorder");
    }
    var snapshot = table.latest();
    CompactionOptions options = new CompactionOptions(
        flags.targetFileSize == null ? OptionalLong.empty() : OptionalLong.of(ByteSizes.parse(flags.targetFileSize)),
        flags.deleteRatioThreshold == null ? CompactionOptions.DEFAULT_DELETED_ROW_RATIO : flags.deleteRatioThreshold)
        .zOrder(dev.resurfacer.names.Identifiers.topLevelNames(flags.columns, "--columns"))
        .where(DeltaWhere.parse(flags.where, snapshot.getSchema(), snapshot.getPartitionColumnNames()))
        .runner(switch (flags.runner.toLowerCase(Locale.ROOT)) {
          case "auto" -> CompactionOptions.Runner.AUTO;
          case "duckdb" -> CompactionOptions.Runner.DUCKDB;
          // Delta's generic runner is Kernel's own reader and writer
          case "generic", "kernel" -> CompactionOptions.Runner.KERNEL;
          default -> throw new UsageException("--runner must be auto, duckdb or generic (got '" + flags.runner + "')");
        });
    if (flags.memory != null) {
      options = options.memory(ByteSizes.parse(flags.memory));
    }
    if (flags.minPartitionIdle != null) {
      options = options.minPartitionIdle(CompactionOptions.idle(flags.minPartitionIdle));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (!act) {
      CompactionPlan plan = DeltaCompactor.plan(table, options);
      out.println(output.json() ? Json.write(PlanJson.of(plan)) : render(plan));
      out.flush();
      return Main.OK;
    }
    CompactionResult result = DeltaCompactor.execute(table, options, Clock.systemUTC(), progress);
    out.println(output.json() ? Json.write(new ResultJson(PlanJson.of(result.plan()), result.committedVersions(),
        result.removedFiles(), result.removedBytes(), result.addedFiles(), result.addedBytes(), result.rows(), result.failedBins()))
        : render(result));
    out.flush();
    return result.failedBins().isEmpty() ? Main.OK : Main.FAILED;
  }

  record PlanJson(String table, String format, long version, String strategy, List<String> zOrderColumns, long targetFileSize,
      String runner, String runnerReason, List<BinJson> bins, List<String> skipped) {
    static PlanJson of(CompactionPlan p) {
      return new PlanJson(p.table(), dev.resurfacer.formats.Format.DELTA.id(), p.version(), p.zOrdered() ? "zorder" : "binpack", p.zOrderColumns(), p.targetFileSize(),
          p.runner(), p.runnerReason(), p.bins().stream().map(b -> new BinJson(b.partition(),
          b.files().stream().map(f -> f.file().toString()).toList(), b.files().stream().mapToLong(f -> f.size()).sum(),
          b.files().stream().filter(f -> f.deletionVector().isPresent()).count())).toList(), p.skipped());
    }
  }

  record BinJson(java.util.Map<String, String> partition, List<String> files, long bytes, long filesWithDeletionVectors) {}

  record ResultJson(PlanJson plan, List<Long> committedVersions, long removedFiles, long removedBytes, long addedFiles,
      long addedBytes, long rows, List<String> failedBins) {}

  static String render(CompactionPlan p) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "compaction plan for %s at version %d: %s, target file size %s%n", p.table(), p.version(),
        p.zOrdered() ? "z-order by " + String.join(", ", p.zOrderColumns()) + " (every file of each partition)" : "bin-pack",
        ByteSizes.format(p.targetFileSize())));
    b.append(String.format(Locale.ROOT, "runner %s: %s%n", p.runner(), p.runnerReason()));
    int i = 0;
    for (CompactionPlan.Bin bin : p.bins()) {
      long bytes = bin.files().stream().mapToLong(f -> f.size()).sum();
      long dvs = bin.files().stream().filter(f -> f.deletionVector().isPresent()).count();
      b.append(String.format(Locale.ROOT, "  bin %d %-28s %4d files %9s, %d with deletion vectors%n", ++i,
          bin.partition().isEmpty() ? "(unpartitioned)" : bin.partition().toString(), bin.files().size(), ByteSizes.format(bytes), dvs));
    }
    b.append(String.format(Locale.ROOT, "would rewrite %d files (%s) in %d bins", p.inputFiles(), ByteSizes.format(p.inputBytes()),
        p.bins().size()));
    if (!p.skipped().isEmpty()) {
      b.append("; skips ").append(String.join("; ", p.skipped()));
    }
    return b.append("\npreview only: nothing was changed (run compact with --yes to compact)").toString();
  }

  static String render(CompactionResult r) {
    StringBuilder b = new StringBuilder();
    if (r.plan().bins().isEmpty()) {
      return "nothing to compact in " + r.plan().table();
    }
    List<String> failed = r.failedBins();
    failed.forEach(f -> b.append("failed: ").append(f).append('\n'));
    if (r.committedVersions().isEmpty()) {
      // a run whose every bin failed compacted nothing, and says so last
      return b.append(String.format(Locale.ROOT, "nothing compacted in %s: %d of %d bins failed (above), the table is as it was",
          r.plan().table(), failed.size(), r.plan().bins().size())).toString();
    }
    b.append(String.format(Locale.ROOT, "compacted %s: %d files (%s) -> %d files (%s), %d rows, versions %s (OPTIMIZE, dataChange=false)",
        r.plan().table(), r.removedFiles(), ByteSizes.format(r.removedBytes()), r.addedFiles(), ByteSizes.format(r.addedBytes()),
        r.rows(), r.committedVersions()));
    if (!failed.isEmpty()) {
      b.append(String.format(Locale.ROOT, "%n%d of %d bins failed (above): their files are as they were", failed.size(),
          r.plan().bins().size()));
    }
    return b.toString();
  }
}
