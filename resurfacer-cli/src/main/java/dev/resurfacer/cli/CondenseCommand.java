package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Condense;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "condense",
    footer = {
      "%nExamples:",
      "  resurfacer condense shop.orders --older-than 90d --to month",
      "  resurfacer condense shop.orders --to year --yes"
    },
    description = {
      "Move aged partitions into a coarser partition spec (day->month, ->year, hour->day).",
      "The coarse spec is added without becoming the default: new data keeps its fine partitions.",
      "Previews unless --yes is given."
    })
final class CondenseCommand extends IcebergVerbCommand {
  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      description =
          "Only coarse partitions that ended at least this long ago (default ${DEFAULT-VALUE}).",
      defaultValue = "90d")
  String olderThan;

  @Option(
      names = "--to",
      paramLabel = "GRANULARITY",
      description = "month, year or day (default: ${DEFAULT-VALUE}).",
      defaultValue = "month")
  String to;

  @Option(names = "--memory", paramLabel = "SIZE", description = "Memory budget for the rewrite.")
  String memory;

  CondenseCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    String granularity = to.toLowerCase(Locale.ROOT);
    if (!Condense.GRANULARITIES.contains(granularity)) {
      throw new UsageException("--to must be day, month or year (got '" + to + "')");
    }
    var age = Durations.parse(olderThan);
    Long memoryBytes = memory == null ? null : ByteSizes.parse(memory);
    return runLocally(new Condense(granularity, age, memoryBytes));
  }
}
