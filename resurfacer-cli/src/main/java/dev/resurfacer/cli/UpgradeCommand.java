package dev.resurfacer.cli;

import dev.resurfacer.maintain.UpgradeFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "upgrade",
    footer = {
      "%nExamples:",
      "  resurfacer upgrade shop.orders --format-version 3",
      "  resurfacer upgrade shop.orders --format-version 3 --yes"
    },
    description = {
      "Move an Iceberg table to a newer format version (metadata only; no data file is rewritten).",
      "Previews the consequences unless --yes is given; a downgrade is refused."
    })
final class UpgradeCommand extends IcebergVerbCommand {
  @Option(
      names = "--format-version",
      paramLabel = "N",
      required = true,
      description = "Target format version: 2 or 3.")
  Integer formatVersion;

  UpgradeCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(new UpgradeFormat(formatVersion));
  }
}
