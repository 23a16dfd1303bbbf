package dev.resurfacer.cli;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionPlan;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "plan",
    footer = {"%nExamples:", "  resurfacer plan shop.orders", "  resurfacer plan shop.orders --partition ts_day=2026-10-01 --target-file-size 256MB"}, description = "Show what compaction would rewrite, what it would skip and why. Changes nothing.")
final class PlanCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;
  @Mixin CatalogOptions catalogOptions;
  @Mixin OutputOptions outputOptions;
  @Mixin CompactionFlags flags;

  @Parameters(paramLabel = "TABLE", description = "namespace.table, or a Delta table (path or delta-catalog name)")
  String tableName;

  PlanCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    var delta = DeltaTargets.find(catalogOptions, ctx, tableName);
    if (delta.isPresent()) {
      return DeltaCompactionCli.run(spec, delta.get(), flags, outputOptions, false, dev.resurfacer.progress.Progress.NONE);
    }
    var options = flags.toOptions();
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      CompactionPlan plan = Compaction.plan(open.table(), options);
      PrintWriter out = spec.commandLine().getOut();
      out.println(outputOptions.json() ? Json.write(plan) : render(plan));
      out.flush();
      return Main.OK;
    }
  }

  static String render(CompactionPlan p) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "compaction plan for %s at snapshot %s: %d live data files (%s), target file size %s, %s%n",
        p.table(), p.snapshotId(), p.liveDataFiles(), ByteSizes.format(p.liveDataBytes()), ByteSizes.format(p.targetFileSizeBytes()),
        p.ordering()));
    p.warnings().forEach(w -> b.append("warning: ").append(w).append(System.lineSeparator()));
    for (CompactionPlan.Group g : p.groups()) {
      b.append(String.format(Locale.ROOT, "  group %d %-28s %4d files %9s, %d delete files -> ~%d files, runner %s%s%n",
          g.index(), g.partition(), g.files(), ByteSizes.format(g.bytes()), g.deleteFiles(), g.expectedOutputFiles(), g.runner(),
          g.runnerReason().isEmpty() || g.runnerReason().equals("default") ? "" : " (" + g.runnerReason() + ")"));
    }
    b.append(String.format(Locale.ROOT, "would rewrite %d files (%s) in %d groups", p.filesToRewrite(),
        ByteSizes.format(p.bytesToRewrite()), p.groups().size()));
    if (p.skippedFiles() > 0) {
      b.append(String.format(Locale.ROOT, "; skips %d files: %s", p.skippedFiles(), p.skippedBecause()));
    }
    return b.toString();
  }
}
