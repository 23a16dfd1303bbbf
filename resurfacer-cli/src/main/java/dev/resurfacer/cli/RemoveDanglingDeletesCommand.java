package dev.resurfacer.cli;

import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DanglingDeletesResult;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "remove-dangling-deletes",
    footer = {
      "%nExamples:",
      "  resurfacer remove-dangling-deletes shop.orders",
      "  resurfacer remove-dangling-deletes shop.orders --yes"
    },
    description = {
      "Remove delete files that no live data file can be affected by (metadata only).",
      "The files stay on storage until expire frees them."
    })
final class RemoveDanglingDeletesCommand extends TableCommand {
  @Mixin
  ActOptions actOptions;

  @Mixin
  EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  RemoveDanglingDeletesCommand(CliContext ctx) {
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
          new dev.resurfacer.maintain.RemoveDanglingDeletes(),
          actOptions.yes);
    }
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      DanglingDeletes.Plan plan = DanglingDeletes.plan(tableName, open.table());
      DanglingDeletesResult result =
          actOptions.yes ? DanglingDeletes.execute(plan) : plan.preview();
      print(result, out -> out.println(render(result, actOptions.yes)));
      return Main.OK;
    }
  }

  static String render(DanglingDeletesResult r, boolean asked) {
    StringBuilder b = new StringBuilder();
    String verb = r.committed() ? "removed" : asked ? "found" : "would remove";
    b.append(String.format(
        Locale.ROOT,
        "%s: %s %d of %d delete file(s) (%d records, %s)%n",
        r.table(),
        verb,
        r.files(),
        r.deleteFiles(),
        r.records(),
        ByteSizes.format(r.bytes())));
    for (DanglingDeletesResult.DanglingDelete d : r.dangling()) {
      b.append(String.format(
          Locale.ROOT,
          "  %-15s seq %-5d %-24s %s%n",
          d.kind().replace('_', ' '),
          d.dataSequenceNumber(),
          d.partition().isEmpty() ? "(unpartitioned)" : d.partition(),
          d.path()));
    }
    if (r.committed()) {
      b.append("metadata only: the files stay on storage until expire frees them\n");
    } else if (!asked && r.files() > 0) {
      b.append("preview only: nothing was changed (pass --yes to remove)\n");
    }
    return b.toString().stripTrailing();
  }
}
