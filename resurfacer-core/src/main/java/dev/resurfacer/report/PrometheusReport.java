package dev.resurfacer.report;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * The run in Prometheus text exposition format, for node-exporter's textfile collector. Write it to a
 * temporary file and rename it into the collector's directory so a scrape never sees half a file.
 */
public final class PrometheusReport {
  private PrometheusReport() {}

  public static String render(RunReport r) {
    StringBuilder b = new StringBuilder();
    help(
        b, "resurfacer_maintain_last_run_timestamp_seconds", "When the last maintain run started.");
    b.append("resurfacer_maintain_last_run_timestamp_seconds ")
        .append(Instant.parse(r.startedAt()).getEpochSecond())
        .append('\n');
    help(b, "resurfacer_maintain_run_duration_seconds", "How long the last maintain run took.");
    b.append("resurfacer_maintain_run_duration_seconds ")
        .append(seconds(r.durationMs()))
        .append('\n');
    help(b, "resurfacer_maintain_tables", "Tables of the last run by outcome.");
    for (Outcome o : Outcome.values()) {
      b.append("resurfacer_maintain_tables{outcome=\"")
          .append(o.json())
          .append("\"} ")
          .append(r.count(o))
          .append('\n');
    }
    help(
        b,
        "resurfacer_maintain_table_outcome",
        "1 for the outcome each table had in the last run.");
    for (TableReport t : r.tables()) {
      b.append("resurfacer_maintain_table_outcome{")
          .append(table(t))
          .append(",outcome=\"")
          .append(t.outcome().json())
          .append("\"} 1\n");
    }
    help(
        b,
        "resurfacer_maintain_operation_duration_seconds",
        "Duration of each operation in the last run.");
    for (TableReport t : r.tables()) {
      for (OperationResult o : t.operations()) {
        b.append("resurfacer_maintain_operation_duration_seconds{")
            .append(table(t))
            .append(",operation=\"")
            .append(o.operation())
            .append("\",outcome=\"")
            .append(o.outcome().json())
            .append("\"} ")
            .append(seconds(o.durationMs()))
            .append('\n');
      }
    }
    help(
        b,
        "resurfacer_maintain_operation_count",
        "Counters each operation reported (files rewritten, bytes deleted, ...).");
    for (TableReport t : r.tables()) {
      for (OperationResult o : t.operations()) {
        for (Map.Entry<String, Long> m : o.metrics().entrySet()) {
          b.append("resurfacer_maintain_operation_count{")
              .append(table(t))
              .append(",operation=\"")
              .append(o.operation())
              .append("\",counter=\"")
              .append(escape(m.getKey()))
              .append("\"} ")
              .append(m.getValue())
              .append('\n');
        }
      }
    }
    gauge(b, r, "resurfacer_table_data_files", "Live data files.", s -> s.dataFiles());
    gauge(b, r, "resurfacer_table_data_bytes", "Bytes of live data files.", s -> s.dataBytes());
    gauge(
        b,
        r,
        "resurfacer_table_small_data_files",
        "Live data files below the small-file threshold.",
        s -> s.smallDataFiles());
    gauge(b, r, "resurfacer_table_delete_files", "Live delete files.", s -> s.deleteFiles());
    gauge(
        b,
        r,
        "resurfacer_table_snapshots",
        "Snapshots in the table's metadata.",
        s -> s.snapshots());
    return b.toString();
  }

  private static void gauge(
      StringBuilder b,
      RunReport r,
      String name,
      String help,
      java.util.function.ToLongFunction<TableStats> f) {
    help(b, name, help + " Measured after the run (before it when the run changed nothing).");
    for (TableReport t : r.tables()) {
      TableStats s = t.after() != null ? t.after() : t.before();
      if (s != null) {
        b.append(name)
            .append('{')
            .append(table(t))
            .append("} ")
            .append(f.applyAsLong(s))
            .append('\n');
      }
    }
  }

  private static void help(StringBuilder b, String name, String text) {
    b.append("# HELP ")
        .append(name)
        .append(' ')
        .append(text)
        .append('\n')
        .append("# TYPE ")
        .append(name)
        .append(" gauge\n");
  }

  private static String table(TableReport t) {
    return "catalog=\"" + escape(t.catalog()) + "\",table=\"" + escape(t.table()) + "\"";
  }

  private static String seconds(long ms) {
    return String.format(Locale.ROOT, "%.3f", ms / 1000.0);
  }

  public static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
