package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Readout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "restore-orphans",
    footer = {
      "%nExamples:",
      "  resurfacer restore-orphans shop.orders 20261130T051500123Z",
      "  resurfacer restore-orphans shop.orders 20261130T051500123Z --yes"
    },
    description = {
      "Put back the files a 'remove-orphans --quarantine' run moved to the table's quarantine.",
      "Previews unless --yes is given; a file whose original location is taken again is left in the quarantine",
      "and named (exit 1)."
    })
final class RestoreOrphansCommand extends IcebergVerbCommand {
  @Parameters(
      index = "1",
      paramLabel = "RUN-ID",
      description = "The run id remove-orphans --quarantine printed, e.g. 20261130T051500123Z")
  String runId;

  RestoreOrphansCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    Readout r = Dispatcher.restoreOrphans(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName),
        runId,
        act.yes ? Mode.COMMIT : Mode.PREVIEW);
    print(r);
    return r.succeeded() ? Main.OK : Main.FAILED;
  }
}
