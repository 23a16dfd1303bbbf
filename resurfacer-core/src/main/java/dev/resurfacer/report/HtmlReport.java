package dev.resurfacer.report;

import dev.resurfacer.units.ByteSizes;
import java.util.List;
import java.util.Locale;

/**
 * The run as one self-contained HTML page: inline CSS, charts as inline SVG, no scripts and no
 * external fetches, so it can be mailed, archived or opened offline. Per table: outcome, before and
 * after numbers, a file-size histogram before and after (same scale, so the shift is visible), and
 * what each operation did or skipped and why.
 */
public final class HtmlReport {
  private static final int W = 360;
  private static final int H = 150;
  private static final int AXIS = 34;

  /** The page's CSS, shared with pages that embed {@link #tableSection} (serve's dashboard). */
  public static final String STYLE =
      "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;max-width:1100px}"
          + "h1{font-size:20px}h2{font-size:16px;margin:28px 0 6px}table{border-collapse:collapse;margin:6px 0}"
          + "td,th{padding:3px 10px;border-bottom:1px solid #e2e5e9;text-align:left;vertical-align:top}"
          + "td.n{text-align:right;font-variant-numeric:tabular-nums}.charts{display:flex;gap:24px;flex-wrap:wrap}"
          + "figure{margin:0}figcaption{font-size:12px;color:#57606a}"
          + ".done,.nothing_to_do,.previewed{color:#1a7f37}.skipped{color:#9a6700}.failed,.refused{color:#cf222e;font-weight:600}";

  private HtmlReport() {}

  /** One table's section of the report: outcome, before and after numbers and histograms, operations. */
  public static String tableSection(TableReport t) {
    StringBuilder b = new StringBuilder();
    table(b, t);
    return b.toString();
  }

  /** The before and after file-size histograms on one scale ({@code after} may be null). */
  public static String histograms(TableStats before, TableStats after) {
    StringBuilder b = new StringBuilder("<div class=\"charts\">\n");
    charts(b, before, after);
    return b.append("</div>\n").toString();
  }

  private static void charts(StringBuilder b, TableStats before, TableStats a) {
    long max = maxFiles(before);
    if (a != null) {
      max = Math.max(max, maxFiles(a));
    }
    histogram(b, "before", before, max);
    if (a != null) {
      histogram(b, "after", a, max);
    }
  }

  public static String render(RunReport r) {
    StringBuilder b = new StringBuilder();
    b.append(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Resurfacer maintain report</title>\n<style>\n")
        .append(STYLE)
        .append("\n</style></head><body>\n");
    b.append("<h1>Resurfacer maintain report</h1>\n<p>")
        .append(esc(r.mode()))
        .append(" run started ")
        .append(esc(r.startedAt()))
        .append(", ")
        .append(String.format(Locale.ROOT, "%.1f", r.durationMs() / 1000.0))
        .append(" s. ");
    b.append(r.tables().size()).append(" table(s): ");
    List<String> parts = new java.util.ArrayList<>();
    for (Outcome o : Outcome.values()) {
      if (r.count(o) > 0) {
        parts.add("<span class=\"" + o.json() + "\">" + r.count(o) + " "
            + o.json().replace('_', ' ') + "</span>");
      }
    }
    b.append(String.join(", ", parts)).append(".</p>\n");
    if (r.mode().equals("preview")) {
      b.append(
          "<p>Preview only: nothing was changed. The operations say what a run with <code>--yes</code> would do.</p>\n");
    }
    for (TableReport t : r.tables()) {
      table(b, t);
    }
    b.append("</body></html>\n");
    return b.toString();
  }

  private static void table(StringBuilder b, TableReport t) {
    b.append("<section><h2>")
        .append(esc(t.catalog() + "." + t.table()))
        .append(" <span class=\"")
        .append(t.outcome().json())
        .append("\">")
        .append(t.outcome().json().replace('_', ' '))
        .append("</span></h2>\n");
    if (t.message() != null) {
      b.append("<p class=\"")
          .append(t.outcome().json())
          .append("\">")
          .append(esc(t.message()))
          .append("</p>\n");
    }
    if (t.before() != null) {
      TableStats a = t.after();
      b.append("<table><tr><th></th><th>before</th>")
          .append(a == null ? "" : "<th>after</th>")
          .append("</tr>\n");
      row(b, "data files", t.before().dataFiles(), a == null ? null : a.dataFiles(), false);
      row(b, "data bytes", t.before().dataBytes(), a == null ? null : a.dataBytes(), true);
      row(
          b,
          "small data files",
          t.before().smallDataFiles(),
          a == null ? null : a.smallDataFiles(),
          false);
      row(b, "delete files", t.before().deleteFiles(), a == null ? null : a.deleteFiles(), false);
      row(b, "snapshots", t.before().snapshots(), a == null ? null : (long) a.snapshots(), false);
      row(b, "manifests", t.before().manifests(), a == null ? null : a.manifests(), false);
      b.append("</table>\n<div class=\"charts\">\n");
      charts(b, t.before(), a);
      b.append("</div>\n");
    }
    b.append(
        "<table><tr><th>operation</th><th>outcome</th><th>duration</th><th>what it did, or why not</th></tr>\n");
    for (OperationResult o : t.operations()) {
      b.append("<tr><td>")
          .append(esc(o.operation()))
          .append("</td><td class=\"")
          .append(o.outcome().json())
          .append("\">")
          .append(o.outcome().json().replace('_', ' '))
          .append("</td><td class=\"n\">")
          .append(String.format(Locale.ROOT, "%.1f s", o.durationMs() / 1000.0))
          .append("</td><td>")
          .append(esc(o.message()))
          .append("</td></tr>\n");
    }
    b.append("</table></section>\n");
  }

  private static void row(StringBuilder b, String label, long before, Long after, boolean bytes) {
    b.append("<tr><td>")
        .append(label)
        .append("</td><td class=\"n\">")
        .append(bytes ? ByteSizes.format(before) : before)
        .append("</td>");
    if (after != null) {
      b.append("<td class=\"n\">")
          .append(bytes ? ByteSizes.format(after) : after)
          .append("</td>");
    }
    b.append("</tr>\n");
  }

  private static long maxFiles(TableStats s) {
    return s.sizeHistogram().stream()
        .mapToLong(TableStats.SizeBucket::files)
        .max()
        .orElse(0);
  }

  /** Bars are file counts per size bucket; both charts of a table share {@code max} so their heights compare. */
  private static void histogram(StringBuilder b, String caption, TableStats s, long max) {
    List<TableStats.SizeBucket> buckets = s.sizeHistogram();
    int n = Math.max(1, buckets.size());
    double slot = (W - 10.0) / n;
    double plot = H - AXIS - 14;
    b.append("<figure><svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(W)
        .append("\" height=\"")
        .append(H)
        .append("\" viewBox=\"0 0 ")
        .append(W)
        .append(' ')
        .append(H)
        .append("\" role=\"img\" aria-label=\"file sizes ")
        .append(caption)
        .append("\">");
    b.append("<line x1=\"5\" y1=\"")
        .append(H - AXIS)
        .append("\" x2=\"")
        .append(W - 5)
        .append("\" y2=\"")
        .append(H - AXIS)
        .append("\" stroke=\"#8c959f\"/>");
    for (int i = 0; i < buckets.size(); i++) {
      TableStats.SizeBucket k = buckets.get(i);
      double h = max == 0 ? 0 : plot * k.files() / max;
      double x = 5 + i * slot + slot * 0.15;
      double y = H - AXIS - h;
      b.append(String.format(
          Locale.ROOT,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %d file(s), %s</title></rect>",
          x,
          y,
          slot * 0.7,
          h,
          caption.equals("before") ? "#8250df" : "#1a7f37",
          esc(k.label()),
          k.files(),
          ByteSizes.format(k.bytes())));
      if (k.files() > 0) {
        b.append(String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%d</text>",
            x + slot * 0.35,
            y - 2,
            k.files()));
      }
      b.append(String.format(
          Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\" fill=\"#57606a\">%s</text>",
          x + slot * 0.35,
          H - AXIS + 12 + (i % 2) * 11,
          esc(k.label())));
    }
    b.append("</svg><figcaption>data files by size, ")
        .append(caption)
        .append(": ")
        .append(s.dataFiles())
        .append(" file(s), ")
        .append(ByteSizes.format(s.dataBytes()))
        .append("</figcaption></figure>\n");
  }

  public static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
