package dev.resurfacer.serve;

import static dev.resurfacer.report.HtmlReport.esc;

import dev.resurfacer.layout.Advice;
import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.report.HtmlReport;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.units.ByteSizes;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The dashboard's pages: server-rendered HTML with inline CSS and the HTML report's inline SVG
 * histograms; no scripts, nothing fetched from elsewhere. Pause and resume are plain form posts.
 */
public final class Dashboard {
  static final int RECENT_RUNS = 20;
  private static final String EXTRA_STYLE =
      ".score{font-weight:600}.good{color:#1a7f37}.warn{color:#9a6700}.bad{color:#cf222e}"
          + ".interrupted,.running{color:#9a6700;font-weight:600}form{margin:0}button{font:inherit;padding:1px 8px}"
          + ".run{border-top:1px solid #d0d7de;margin-top:18px;padding-top:6px}.muted{color:#57606a}";

  private Dashboard() {}

  public static String tablesPage(MaintenanceService service) {
    StringBuilder b = page("Resurfacer serve");
    Instant now = service.now();
    List<TableState> tables = service.tables();
    b.append("<h1>Resurfacer serve</h1>\n<p class=\"muted\">")
        .append(tables.size())
        .append(" table(s); triggers evaluated every ")
        .append(esc(dev.resurfacer.units.Durations.format(service.settings().interval())))
        .append(", last at ")
        .append(
            service.lastEvaluation() == null
                ? "not yet"
                : esc(service.lastEvaluation().toString()))
        .append("; at most ")
        .append(service.settings().concurrency())
        .append(" run(s) at once.")
        .append(service.stopping() ? " <b>Stopping: no new runs.</b>" : "")
        .append(
            service.acting()
                ? ""
                : " <b>Watching only</b> (started without --yes): fired triggers run nothing.")
        .append("</p>\n");
    if (!service.catalogsInBackoff().isEmpty()) {
      b.append("<p class=\"bad\">Backing off after errors: catalog(s) ")
          .append(esc(String.join(", ", service.catalogsInBackoff())))
          .append("</p>\n");
    }
    b.append(
        "<table id=\"tables\"><tr><th>table</th><th>health</th><th>why</th><th>state</th><th>data files</th>"
            + "<th>small files</th><th>delete files</th><th>snapshots</th><th>commits since run</th><th></th></tr>\n");
    for (TableState t : tables) {
      TableSignals s = t.signals();
      b.append("<tr data-table=\"")
          .append(esc(t.qualified()))
          .append("\"><td>")
          .append(esc(t.qualified()))
          .append(" <a class=\"muted\" href=\"/advice?catalog=")
          .append(esc(encode(t.catalog())))
          .append("&amp;table=")
          .append(esc(encode(t.table())))
          .append("\">layout advice</a></td>");
      if (t.assessment() == null) {
        b.append("<td class=\"n\">-</td><td>")
            .append(esc(t.error() == null ? "not evaluated yet" : t.error()))
            .append("</td>");
      } else {
        int score = t.assessment().score();
        b.append("<td class=\"n score ")
            .append(score >= 75 ? "good" : score >= 50 ? "warn" : "bad")
            .append("\">")
            .append(score)
            .append("</td><td>")
            .append(esc(t.assessment().why()));
        if (!t.assessment().fired().isEmpty()) {
          b.append("<br><b>fired:</b> ")
              .append(esc(String.join("; ", t.assessment().fired())));
        }
        if (t.error() != null) {
          b.append("<br><span class=\"bad\">").append(esc(t.error())).append("</span>");
        }
        b.append("</td>");
      }
      b.append("<td class=\"")
          .append(t.state(now))
          .append("\">")
          .append(t.state(now))
          .append("</td>");
      b.append(num(s == null ? null : s.dataFiles()))
          .append(num(s == null ? null : s.smallDataFiles()))
          .append(num(s == null ? null : s.deleteFiles()))
          .append(num(s == null || s.snapshots() == null ? null : s.snapshots().longValue()))
          .append(num(
              s == null || s.commitsSince() == null ? null : s.commitsSince().longValue()));
      String action = t.paused() ? "resume" : "pause";
      b.append("<td><form method=\"post\" action=\"/tables/")
          .append(action)
          .append("\"><input type=\"hidden\" name=\"catalog\" value=\"")
          .append(esc(t.catalog()))
          .append("\"><input type=\"hidden\" name=\"table\" value=\"")
          .append(esc(t.table()))
          .append("\"><button type=\"submit\">")
          .append(action)
          .append("</button></form></td></tr>\n");
    }
    b.append("</table>\n<h2>Last runs</h2>\n");
    List<HistoryRun> runs = service.history().recent(RECENT_RUNS);
    if (runs.isEmpty()) {
      b.append("<p class=\"muted\">No run yet.</p>\n");
    }
    for (HistoryRun r : runs) {
      b.append("<div class=\"run\" data-run=\"")
          .append(r.id())
          .append("\"><a href=\"/runs/")
          .append(r.id())
          .append("\">run ")
          .append(r.id())
          .append("</a> ")
          .append(esc(r.qualifiedTable()))
          .append(" <span class=\"")
          .append(esc(r.status()))
          .append("\">")
          .append(esc(r.status().replace('_', ' ')))
          .append("</span> <span class=\"muted\">")
          .append(esc(r.startedAt().toString()))
          .append(
              r.durationMs() == null
                  ? ""
                  : String.format(Locale.ROOT, ", %.1f s", r.durationMs() / 1000.0))
          .append("; trigger: ")
          .append(esc(r.trigger()))
          .append("; reclaimed ")
          .append(r.reclaimedFiles())
          .append(" file(s), ")
          .append(esc(ByteSizes.format(r.reclaimedBytes())))
          .append("</span>\n");
      TableReport report = r.report();
      if (report != null && report.before() != null) {
        b.append(HtmlReport.histograms(report.before(), report.after()));
      }
      b.append("</div>\n");
    }
    return b.append("</body></html>\n").toString();
  }

  public static String runPage(HistoryRun r) {
    StringBuilder b = page("Resurfacer run " + r.id());
    b.append("<p><a href=\"/\">all tables</a></p>\n<h1>Run ")
        .append(r.id())
        .append(": ")
        .append(esc(r.qualifiedTable()))
        .append(" <span class=\"")
        .append(esc(r.status()))
        .append("\">")
        .append(esc(r.status().replace('_', ' ')))
        .append("</span></h1>\n");
    b.append("<table id=\"run\">");
    row(b, "trigger", r.trigger());
    row(b, "operations", String.join(", ", r.operations()));
    row(b, "started", r.startedAt().toString());
    row(b, "finished", r.finishedAt() == null ? "-" : r.finishedAt().toString());
    row(
        b,
        "duration",
        r.durationMs() == null
            ? "-"
            : String.format(Locale.ROOT, "%.1f s", r.durationMs() / 1000.0));
    row(b, "reclaimed", r.reclaimedFiles() + " file(s), " + ByteSizes.format(r.reclaimedBytes()));
    row(b, "process", r.host() + " pid " + r.pid());
    if (r.message() != null) {
      row(b, "message", r.message());
    }
    b.append("</table>\n");
    if (r.report() != null) {
      b.append(HtmlReport.tableSection(r.report()));
    }
    return b.append("</body></html>\n").toString();
  }

  /** The layout advice of one table: what {@code resurfacer advise} prints, as a page. */
  public static String advicePage(MaintenanceService.TableAdvice t) {
    StringBuilder b = page("Resurfacer layout advice: " + t.catalog() + "." + t.table());
    b.append("<p><a href=\"/\">all tables</a></p>\n<h1>Layout advice: ")
        .append(esc(t.catalog() + "." + t.table()))
        .append("</h1>\n");
    Advice a = t.advice();
    if (a == null) {
      return b.append("<p id=\"advice\" class=\"muted\">")
          .append(esc(t.unavailable()))
          .append("</p></body></html>\n")
          .toString();
    }
    b.append("<p class=\"muted\">From ")
        .append(a.scans())
        .append(" scan report(s)")
        .append(
            a.skippedLines() > 0
                ? ", " + a.skippedLines() + " malformed or foreign line(s) skipped"
                : "")
        .append(
            a.droppedByCollectors() > 0
                ? ", " + a.droppedByCollectors() + " dropped by collectors"
                : "")
        .append("; sampled ")
        .append(a.sampleRows())
        .append(" row(s) from ")
        .append(a.sampleFiles())
        .append(" file(s).</p>\n");
    b.append("<p id=\"advice\" class=\"")
        .append(a.recommendation() == null ? "muted" : "good")
        .append("\"><b>")
        .append(a.recommendation() == null ? "" : "Recommend: ")
        .append("</b>")
        .append(esc(a.reason()))
        .append("</p>\n");
    if (!a.columns().isEmpty()) {
      b.append(
          "<table id=\"columns\"><tr><th>column</th><th>filtered</th><th>share</th><th>how</th><th>files read now</th>"
              + "<th>projected</th></tr>\n");
      for (Advice.ColumnUse c : a.columns()) {
        b.append("<tr><td>")
            .append(esc(c.column()))
            .append("</td>")
            .append(num((long) c.filtered()))
            .append(String.format(Locale.ROOT, "<td class=\"n\">%.0f%%</td><td>", c.share() * 100))
            .append(esc(c.kinds()))
            .append(String.format(
                Locale.ROOT, "</td><td class=\"n\">%.0f%%</td>", c.scannedFraction() * 100))
            .append(num((long) c.projected()))
            .append("</tr>\n");
      }
      b.append("</table>\n");
    }
    if (a.current() != null) {
      b.append(
          "<h2>Layouts simulated, cheapest first</h2>\n<table id=\"candidates\"><tr><th>layout</th><th>target</th><th>files</th>"
              + "<th>files/query</th><th>read/query</th></tr>\n");
      candidateRow(b, a.current(), "now");
      a.candidates().stream()
          .limit(8)
          .forEach(c -> candidateRow(b, c, ByteSizes.format(c.targetFileSize())));
      b.append("</table>\n");
    }
    if (!a.eras().isEmpty()) {
      b.append(
          "<h2>Measured from the reports, per layout</h2>\n<table id=\"eras\"><tr><th>since snapshot</th><th>at</th>"
              + "<th>scans</th><th>data files per scan</th><th>read per scan</th></tr>\n");
      for (Advice.Era e : a.eras()) {
        b.append("<tr><td>")
            .append(e.since())
            .append("</td><td>")
            .append(esc(e.sinceTime()))
            .append("</td>")
            .append(num((long) e.queries()))
            .append(String.format(
                Locale.ROOT, "<td class=\"n\">%.1f</td><td class=\"n\">", e.filesPerQuery()))
            .append(esc(ByteSizes.format((long) e.bytesPerQuery())))
            .append("</td></tr>\n");
      }
      b.append("</table>\n");
    }
    return b.append("</body></html>\n").toString();
  }

  private static void candidateRow(StringBuilder b, Advice.Candidate c, String target) {
    b.append("<tr><td>")
        .append(esc(c.layout()))
        .append("</td><td>")
        .append(esc(target))
        .append("</td>")
        .append(num(c.files()))
        .append(String.format(
            Locale.ROOT, "<td class=\"n\">%.1f</td><td class=\"n\">", c.filesPerQuery()))
        .append(esc(ByteSizes.format((long) c.bytesPerQuery())))
        .append("</td></tr>\n");
  }

  public static String notFound(String what) {
    return page("Not found")
        .append("<h1>Not found</h1><p>")
        .append(esc(what))
        .append("</p><p><a href=\"/\">all tables</a></p></body></html>\n")
        .toString();
  }

  static String formValue(String body, String name) {
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0
          && java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8)
              .equals(name)) {
        return java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static StringBuilder page(String title) {
    return new StringBuilder(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        .append(esc(title))
        .append("</title>\n<style>\n")
        .append(HtmlReport.STYLE)
        .append(EXTRA_STYLE)
        .append("\n</style></head><body>\n");
  }

  private static void row(StringBuilder b, String label, String value) {
    b.append("<tr><th>")
        .append(esc(label))
        .append("</th><td>")
        .append(esc(value))
        .append("</td></tr>\n");
  }

  private static String num(Long v) {
    return "<td class=\"n\">" + (v == null ? "-" : v.toString()) + "</td>";
  }
}
