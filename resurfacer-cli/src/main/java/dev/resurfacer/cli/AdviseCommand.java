package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.units.ByteSizes;
import java.nio.file.Path;
import java.util.Formatter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "advise",
    footer = {
      "%nExamples:",
      "  resurfacer advise shop.orders --scan-reports /var/lib/scan-reports",
      "  resurfacer advise shop.orders --output json     # scan-reports from the policy's compact.scan-reports"
    },
    description = {
      "Recommend a layout (sort or z-order keys) and target file size from how the table is queried.",
      "Reads the scan reports engines wrote (docs/scan-reports.md), simulates every recorded filter",
      "against the files each candidate layout would write (from a sample of the table's rows), and",
      "says what to do or that nothing is worth doing. Changes nothing; the policy key",
      "'compact.layout: auto' lets maintain apply it (docs/advise.md)."
    })
final class AdviseCommand extends TableCommand {
  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  @Option(
      names = "--scan-reports",
      paramLabel = "PATH",
      description =
          "Directory (or file) of scan-report JSON lines (default: the table's policy compact.scan-reports).")
  Path scanReports;

  @Option(
      names = "--min-gain",
      paramLabel = "FRACTION",
      defaultValue = "0.2",
      description =
          "Recommend a change only when it cuts the expected read cost by at least this much (default: ${DEFAULT-VALUE}).")
  double minGain;

  AdviseCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    if (!(minGain >= 0 && minGain < 1)) {
      throw new UsageException("--min-gain must be a number in [0, 1) (got " + minGain + ")");
    }
    Advice advice = Dispatcher.advise(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName),
        () -> ScanReports.read(scanReports != null ? scanReports : fromPolicy(), tableName),
        minGain);
    print(advice, out -> out.println(render(advice)));
    return Main.OK;
  }

  private Path fromPolicy() {
    String dir = catalogOptions
        .tableConfig(ctx)
        .policies()
        .effective(tableName)
        .policy()
        .compact()
        .options()
        .get(Compact.SCAN_REPORTS);
    if (dir == null) {
      throw new UsageException(
          "no scan reports given: pass --scan-reports DIR or set compact.scan-reports in the policy");
    }
    return Path.of(dir);
  }

  static String render(Advice a) {
    StringBuilder b = new StringBuilder();
    Formatter f = new Formatter(b, Locale.ROOT);
    f.format(
        "advice for %s from %d scan report(s)%s%s%s%n",
        a.table(),
        a.scans(),
        a.simulated() < a.scans() ? " (" + a.simulated() + " simulated)" : "",
        a.skippedLines() > 0
            ? ", " + a.skippedLines() + " malformed or foreign line(s) skipped"
            : "",
        a.droppedByCollectors() > 0
            ? ", " + a.droppedByCollectors() + " dropped by collectors"
            : "");
    if (!a.columns().isEmpty()) {
      f.format(
          "  %-20s %8s %7s  %-26s %14s %10s%n",
          "column", "filtered", "share", "how", "files read now", "projected");
      for (Advice.ColumnUse c : a.columns()) {
        f.format(
            "  %-20s %8d %6.0f%%  %-26s %13.0f%% %10d%n",
            c.column(),
            c.filtered(),
            c.share() * 100,
            c.kinds(),
            c.scannedFraction() * 100,
            c.projected());
      }
    }
    if (a.current() != null) {
      f.format(
          "sampled %d rows from %d file(s); simulated layouts, cheapest first (cost = bytes read + 4 MB per file opened):%n",
          a.sampleRows(), a.sampleFiles());
      f.format(
          "  %-32s %9s %7s %14s %14s%n", "layout", "target", "files", "files/query", "read/query");
      row(f, a.current(), "now");
      a.candidates().stream()
          .limit(8)
          .forEach(c -> row(f, c, ByteSizes.format(c.targetFileSize())));
    }
    b.append(a.recommendation() != null ? "recommend: " : "")
        .append(a.reason())
        .append(System.lineSeparator());
    if (a.recommendation() != null) {
      Advice.Recommendation r = a.recommendation();
      long t = r.targetFileSize();
      f.format(
          "  apply: resurfacer compact %s --strategy %s%s --target-file-size %s --rewrite-all --yes%n",
          a.table(),
          r.strategy(),
          r.orderBy() == null
              ? ""
              : (r.strategy().equals("sort") ? " --sort-by '" : " --columns '") + r.orderBy() + "'",
          t % (1L << 20) == 0 ? (t >> 20) + "MB" : Long.toString(t));
      b.append("  or let maintain apply it: compact: {layout: auto, scan-reports: DIR}")
          .append(System.lineSeparator());
    }
    if (!a.eras().isEmpty()) {
      b.append(
              "measured from the reports, per layout (each era begins at a rewrite of the table's files):")
          .append(System.lineSeparator());
      Advice.Era previous = null;
      for (Advice.Era e : a.eras()) {
        f.format(
            "  since snapshot %d (%s): %d scan(s), %.1f data files per scan, %s read per scan%s%n",
            e.since(),
            e.sinceTime(),
            e.queries(),
            e.filesPerQuery(),
            ByteSizes.format((long) e.bytesPerQuery()),
            previous == null || e.filesPerQuery() <= 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    " (%.1fx fewer files than before)",
                    previous.filesPerQuery() / e.filesPerQuery()));
        previous = e;
      }
    }
    return b.toString().stripTrailing();
  }

  private static void row(Formatter f, Advice.Candidate c, String target) {
    f.format(
        "  %-32s %9s %7d %14.1f %14s%n",
        c.layout(), target, c.files(), c.filesPerQuery(), ByteSizes.format((long)
            c.bytesPerQuery()));
  }
}
