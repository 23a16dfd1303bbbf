package dev.resurfacer.cli;

import dev.resurfacer.iceberg.deletes.DeletionVectorRewrite;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewrite;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "rewrite-position-deletes",
    footer = {
      "%nExamples:",
      "  resurfacer rewrite-position-deletes shop.orders",
      "  resurfacer rewrite-position-deletes shop.orders --option min-input-files=2 --yes"
    },
    description = {
      "Format v2: compact small position-delete files per partition, dropping entries whose data file is gone.",
      "Format v3: turn position-delete files into deletion vectors, one per data file (data files are not rewritten).",
      "Previews unless --yes is given."
    })
final class RewritePositionDeletesCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Mixin
  EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(
      names = "--option",
      paramLabel = "KEY=VALUE",
      description =
          "Planner options by Spark's rewrite_position_delete_files names (min-input-files, rewrite-all, target-file-size-bytes, ...).")
  Map<String, String> options = new LinkedHashMap<>();

  RewritePositionDeletesCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(dev.resurfacer.engines.ExecutionEngines.LOCAL)) {
      return EngineRoute.run(
          spec,
          ctx,
          catalogOptions,
          outputOptions,
          engine,
          tableName,
          new dev.resurfacer.maintain.RewritePositionDeletes(options),
          act.yes);
    }
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      PrintWriter out = spec.commandLine().getOut();
      if (PositionDeleteRewrite.carriesDeletionVectors(open.table())) {
        DeletionVectorRewrite.Plan plan = DeletionVectorRewrite.plan(open.table());
        printVectors(out, act.yes ? DeletionVectorRewrite.execute(plan) : plan.preview());
        return Main.OK;
      }
      PositionDeleteRewrite.Plan plan = PositionDeleteRewrite.plan(open.table(), options);
      PositionDeleteRewrite.Result r =
          act.yes ? PositionDeleteRewrite.execute(plan) : plan.preview();
      if (outputOptions.json()) {
        out.println(Json.write(r));
      } else {
        for (PositionDeleteRewrite.Group g : r.groups()) {
          out.printf(
              Locale.ROOT,
              "  %-40s %3d delete files %9s -> %d, %d entries kept, %d dropped (data file gone)%n",
              g.partition(),
              g.inputFiles(),
              ByteSizes.format(g.inputBytes()),
              g.outputFiles(),
              g.keptEntries(),
              g.droppedEntries());
        }
        out.println(
            r.groups().isEmpty()
                ? "no position-delete files to rewrite in " + r.table()
                : r.committed()
                    ? "rewrote " + r.rewrittenFiles() + " position-delete files in snapshot "
                        + r.snapshotId()
                    : "preview only: nothing was changed (run with --yes to rewrite)");
      }
      out.flush();
      return Main.OK;
    }
  }

  private void printVectors(PrintWriter out, DeletionVectorRewrite.Result r) {
    if (outputOptions.json()) {
      out.println(Json.write(r));
    } else if (r.positionDeleteFiles() == 0) {
      out.println("no position-delete files to turn into deletion vectors in " + r.table());
    } else {
      out.printf(
          Locale.ROOT,
          "%s (format v3): %d position-delete files -> %d deletion vectors for %d data files, %d deleted positions%n",
          r.table(),
          r.positionDeleteFiles(),
          r.deletionVectors(),
          r.dataFiles(),
          r.positions());
      out.println(
          r.committed()
              ? "committed snapshot " + r.snapshotId()
              : "preview only: nothing was changed (run with --yes to rewrite)");
    }
    out.flush();
  }
}
