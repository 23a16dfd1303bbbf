package dev.resurfacer.serve;

import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.report.PrometheusReport;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code /metrics} in the Prometheus text exposition format (0.0.4): per table its health score,
 * signals and trigger states from the last evaluation, and run counts, durations and files and
 * bytes reclaimed summed over the whole history (so they survive restarts and count every process
 * sharing the history).
 */
public final class ServeMetrics {
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private ServeMetrics() {}

  public static String render(MaintenanceService service) {
    StringBuilder b = new StringBuilder();
    Instant now = service.now();
    List<TableState> tables = service.tables();
    header(b, "resurfacer_serve_up", "gauge", "1 while serve runs.");
    b.append("resurfacer_serve_up 1\n");
    header(b, "resurfacer_serve_start_time_seconds", "gauge", "When this serve process started.");
    b.append("resurfacer_serve_start_time_seconds ")
        .append(service.startedAt().getEpochSecond())
        .append('\n');
    header(
        b,
        "resurfacer_serve_last_evaluation_timestamp_seconds",
        "gauge",
        "When the triggers were last evaluated.");
    Instant last = service.lastEvaluation();
    b.append("resurfacer_serve_last_evaluation_timestamp_seconds ")
        .append(last == null ? 0 : last.getEpochSecond())
        .append('\n');

    header(
        b,
        "resurfacer_serve_table_health_score",
        "gauge",
        "0 (worst) to 100: 50 means a signal is at its threshold.");
    for (TableState t : tables) {
      if (t.assessment() != null) {
        b.append("resurfacer_serve_table_health_score{")
            .append(labels(t))
            .append("} ")
            .append(t.assessment().score())
            .append('\n');
      }
    }
    signal(
        b,
        tables,
        "resurfacer_serve_table_data_files",
        "Live data files.",
        TableSignals::dataFiles);
    signal(
        b,
        tables,
        "resurfacer_serve_table_small_data_files",
        "Live data files below the small-file threshold.",
        TableSignals::smallDataFiles);
    signal(
        b,
        tables,
        "resurfacer_serve_table_delete_files",
        "Live delete files.",
        TableSignals::deleteFiles);
    signal(
        b,
        tables,
        "resurfacer_serve_table_deleted_records",
        "Rows named by live delete files.",
        TableSignals::deletedRecords);
    signal(
        b,
        tables,
        "resurfacer_serve_table_snapshots",
        "Snapshots in the table's metadata.",
        s -> s.snapshots() == null ? null : s.snapshots().longValue());
    signal(
        b,
        tables,
        "resurfacer_serve_table_metadata_files",
        "metadata.json files the table keeps.",
        s -> s.metadataFiles() == null ? null : s.metadataFiles().longValue());
    signal(
        b,
        tables,
        "resurfacer_serve_table_commits_since_last_run",
        "Commits since the table's last run started.",
        s -> s.commitsSince() == null ? null : s.commitsSince().longValue());

    header(
        b,
        "resurfacer_serve_trigger_reached",
        "gauge",
        "1 when a trigger condition is reached, 0 when not.");
    for (TableState t : tables) {
      if (t.assessment() != null) {
        for (Assessment.Condition c : t.assessment().conditions()) {
          if (c.trigger()) {
            b.append("resurfacer_serve_trigger_reached{")
                .append(labels(t))
                .append(",trigger=\"")
                .append(c.name())
                .append("\"} ")
                .append(c.reached() ? 1 : 0)
                .append('\n');
          }
        }
      }
    }
    header(b, "resurfacer_serve_table_state", "gauge", "1 for the state each table is in.");
    for (TableState t : tables) {
      b.append("resurfacer_serve_table_state{")
          .append(labels(t))
          .append(",state=\"")
          .append(t.state(now))
          .append("\"} 1\n");
    }
    header(b, "resurfacer_serve_table_paused", "gauge", "1 when the table is paused.");
    for (TableState t : tables) {
      b.append("resurfacer_serve_table_paused{")
          .append(labels(t))
          .append("} ")
          .append(t.paused() ? 1 : 0)
          .append('\n');
    }
    header(
        b,
        "resurfacer_serve_table_signal_errors",
        "gauge",
        "Signal readings that failed in a row (0 when the last one worked).");
    for (TableState t : tables) {
      b.append("resurfacer_serve_table_signal_errors{")
          .append(labels(t))
          .append("} ")
          .append(t.failuresInARow())
          .append('\n');
    }

    List<RunHistory.Totals> totals = service.history().totals();
    header(
        b, "resurfacer_serve_runs_total", "counter", "Runs in the history by table and outcome.");
    for (RunHistory.Totals t : totals) {
      b.append("resurfacer_serve_runs_total{")
          .append(labels(t.catalog(), t.table()))
          .append(",outcome=\"")
          .append(t.status())
          .append("\"} ")
          .append(t.runs())
          .append('\n');
    }
    header(
        b,
        "resurfacer_serve_run_duration_seconds_total",
        "counter",
        "Time spent in runs, by table and outcome.");
    for (RunHistory.Totals t : totals) {
      b.append("resurfacer_serve_run_duration_seconds_total{")
          .append(labels(t.catalog(), t.table()))
          .append(",outcome=\"")
          .append(t.status())
          .append("\"} ")
          .append(String.format(Locale.ROOT, "%.3f", t.durationMs() / 1000.0))
          .append('\n');
    }
    header(
        b,
        "resurfacer_serve_run_failures_total",
        "counter",
        "Runs that failed or were refused or interrupted.");
    sum(
        b,
        totals,
        "resurfacer_serve_run_failures_total",
        t -> t.status().equals("failed")
                || t.status().equals("refused")
                || t.status().equals(HistoryRun.INTERRUPTED)
            ? t.runs()
            : 0L);
    header(
        b,
        "resurfacer_serve_reclaimed_files_total",
        "counter",
        "Data and delete files removed from tables' current state by runs.");
    sum(b, totals, "resurfacer_serve_reclaimed_files_total", RunHistory.Totals::reclaimedFiles);
    header(
        b,
        "resurfacer_serve_reclaimed_bytes_total",
        "counter",
        "Bytes of data and delete files removed from tables' current state by runs.");
    sum(b, totals, "resurfacer_serve_reclaimed_bytes_total", RunHistory.Totals::reclaimedBytes);
    return b.toString();
  }

  private static void sum(
      StringBuilder b,
      List<RunHistory.Totals> totals,
      String name,
      Function<RunHistory.Totals, Long> f) {
    java.util.Map<String, Long> byTable = new java.util.TreeMap<>();
    for (RunHistory.Totals t : totals) {
      byTable.merge(labels(t.catalog(), t.table()), f.apply(t), Long::sum);
    }
    byTable.forEach((labels, v) ->
        b.append(name).append('{').append(labels).append("} ").append(v).append('\n'));
  }

  private static void signal(
      StringBuilder b,
      List<TableState> tables,
      String name,
      String help,
      Function<TableSignals, Long> f) {
    header(b, name, "gauge", help + " From the last evaluation.");
    for (TableState t : tables) {
      if (t.signals() != null && f.apply(t.signals()) != null) {
        b.append(name)
            .append('{')
            .append(labels(t))
            .append("} ")
            .append(f.apply(t.signals()))
            .append('\n');
      }
    }
  }

  private static void header(StringBuilder b, String name, String type, String help) {
    b.append("# HELP ")
        .append(name)
        .append(' ')
        .append(help)
        .append("\n# TYPE ")
        .append(name)
        .append(' ')
        .append(type)
        .append('\n');
  }

  private static String labels(TableState t) {
    return labels(t.catalog(), t.table());
  }

  private static String labels(String catalog, String table) {
    return "catalog=\"" + PrometheusReport.escape(catalog) + "\",table=\""
        + PrometheusReport.escape(table) + "\"";
  }
}
