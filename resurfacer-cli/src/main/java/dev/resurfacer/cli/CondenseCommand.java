package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.Condensing;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
final class CondenseCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

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
    Condensing.Granularity granularity = switch (to.toLowerCase(Locale.ROOT)) {
      case "day" -> Condensing.Granularity.DAY;
      case "month" -> Condensing.Granularity.MONTH;
      case "year" -> Condensing.Granularity.YEAR;
      default -> throw new UsageException("--to must be day, month or year (got '" + to + "')");
    };
    var age = Durations.parse(olderThan);
    CompactionOptions options = CompactionOptions.defaults();
    if (memory != null) {
      options = options.withMemory(ByteSizes.parse(memory));
    }
    try (OpenTable open = OpenTable.open(catalogOptions, ctx, tableName)) {
      Condensing.Plan plan = Condensing.plan(open.table(), granularity, age, options);
      Condensing.CondenseResult r = act.yes ? Condensing.execute(plan) : plan.preview();
      print(r, out -> {
        if (r.doesNotApply() != null) {
          out.printf(
              Locale.ROOT,
              "condense %s --to %s: nothing to do: %s%n",
              r.table(),
              r.to(),
              r.doesNotApply());
        } else {
          out.printf(
              Locale.ROOT,
              "condense %s: %s(%s) -> %s, partitions ended more than %s ago%n",
              r.table(),
              r.from(),
              r.field(),
              r.to(),
              Durations.format(age));
          for (Condensing.Partition p : r.partitions()) {
            out.printf(
                Locale.ROOT,
                "  %-40s %4d files %9s  %s%s%n",
                p.partition(),
                p.files(),
                ByteSizes.format(p.bytes()),
                p.status(),
                p.message() == null ? "" : " (" + p.message() + ")");
          }
          if (r.partitions().isEmpty()) {
            out.println("  nothing old enough to condense");
          }
          if (!act.yes) {
            out.println("preview only: nothing was changed (run with --yes to condense)");
          }
        }
      });
      return !act.yes || r.committed() || r.partitions().isEmpty() ? Main.OK : Main.FAILED;
    }
  }
}
