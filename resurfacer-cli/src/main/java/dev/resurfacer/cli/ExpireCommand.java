package dev.resurfacer.cli;

import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.report.Readout;
import dev.resurfacer.units.Durations;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "expire",
    footer = {
      "%nExamples:",
      "  resurfacer expire shop.orders            # preview with the table's defaults",
      "  resurfacer expire shop.orders --older-than 7d --retain-last 10 --yes"
    },
    description = {
      "Expire old snapshots and delete the files only they reference (Iceberg core ExpireSnapshots).",
      "Defaults come from the table: history.expire.max-snapshot-age-ms (5d) and history.expire.min-snapshots-to-keep (1).",
      "main is never expired; tags and branches are never dropped unless --expire-refs is given."
    })
final class ExpireCommand extends EngineVerbCommand {
  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      description = "Expire snapshots older than this, e.g. 5d, 12h, 0s.")
  String olderThan;

  @Option(
      names = "--retain-last",
      paramLabel = "N",
      description = "Keep at least N snapshots per branch (at least 1).")
  Integer retainLast;

  @Option(
      names = "--expire-snapshot-id",
      paramLabel = "ID",
      description = "Also expire this snapshot (repeatable).")
  List<Long> snapshotIds = new ArrayList<>();

  @Option(
      names = "--expire-refs",
      description = "Allow dropping tags and branches past their max-ref-age.")
  boolean expireRefs;

  ExpireCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    // options are checked before the catalog is opened: a usage error changes and creates nothing
    ExpireSnapshots expire = ExpireSnapshots.ofFlags(
        olderThan == null ? null : Durations.parse(olderThan), retainLast, snapshotIds, expireRefs);
    String engine = engineOptions.resolve(ctx, catalogOptions, tableName);
    if (!engine.equals(ExecutionEngines.LOCAL)) {
      if (!snapshotIds.isEmpty() || expireRefs) {
        throw new dev.resurfacer.UsageException(
            "--expire-snapshot-id and --expire-refs run on the local engine only");
      }
      return EngineRoute.run(this, engine, tableName, expire, act.yes);
    }
    Readout result = runFenced(tableName, expire, act.yes, progress(act.yes), 0);
    print(result.json(), out -> out.println(result.render(outputOptions.verbose)));
    return result.succeeded() ? Main.OK : Main.FAILED;
  }
}
