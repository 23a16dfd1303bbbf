package dev.resurfacer.scanreports;

import java.time.Instant;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;

/** The JSON lines of docs/scan-reports.md: {@code "kind":"scan"} for a report, {@code "kind":"collector"} for counters. */
final class ReportLine {
  static final int VERSION = 1;

  private ReportLine() {}

  static void scan(StringBuilder b, ScanReport r, Expression rawFilter, long timeMillis) {
    header(b, "scan", timeMillis);
    JsonText.field(b, "producer");
    JsonText.string(b, "iceberg-java");
    JsonText.field(b, "table");
    JsonText.string(b, r.tableName());
    JsonText.field(b, "snapshot-id");
    b.append(r.snapshotId());
    JsonText.field(b, "schema-id");
    b.append(r.schemaId());
    JsonText.field(b, "filter");
    ExpressionJson.write(b, rawFilter != null ? rawFilter : r.filter());
    JsonText.field(b, "filter-values");
    b.append(rawFilter != null);
    JsonText.field(b, "projected-field-ids");
    b.append('[');
    for (int i = 0; i < r.projectedFieldIds().size(); i++) {
      b.append(i == 0 ? "" : ",").append(r.projectedFieldIds().get(i));
    }
    b.append(']');
    JsonText.field(b, "projected-field-names");
    b.append('[');
    for (int i = 0; i < r.projectedFieldNames().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      JsonText.string(b, r.projectedFieldNames().get(i));
    }
    b.append(']');
    ScanMetricsResult m = r.scanMetrics();
    counter(b, "data-files-scanned", m == null ? null : m.resultDataFiles());
    counter(b, "data-files-skipped", m == null ? null : m.skippedDataFiles());
    counter(b, "delete-files-scanned", m == null ? null : m.resultDeleteFiles());
    counter(b, "bytes-scanned", m == null ? null : m.totalFileSizeInBytes());
    counter(b, "data-manifests-scanned", m == null ? null : m.scannedDataManifests());
    counter(b, "data-manifests-skipped", m == null ? null : m.skippedDataManifests());
    if (m != null && m.totalPlanningDuration() != null) {
      JsonText.field(b, "planning-ms");
      b.append(m.totalPlanningDuration().totalDuration().toMillis());
    }
    b.append('}');
  }

  static void collector(
      StringBuilder b, long reported, long written, long dropped, long failed, long timeMillis) {
    header(b, "collector", timeMillis);
    JsonText.field(b, "reported");
    b.append(reported);
    JsonText.field(b, "written");
    b.append(written);
    JsonText.field(b, "dropped");
    b.append(dropped);
    JsonText.field(b, "failed");
    b.append(failed);
    b.append('}');
  }

  private static void header(StringBuilder b, String kind, long timeMillis) {
    b.append('{');
    JsonText.field(b, "format");
    JsonText.string(b, "resurfacer-scan-report");
    JsonText.field(b, "version");
    b.append(VERSION);
    JsonText.field(b, "kind");
    JsonText.string(b, kind);
    JsonText.field(b, "time");
    JsonText.string(b, Instant.ofEpochMilli(timeMillis).toString());
  }

  private static void counter(StringBuilder b, String name, CounterResult c) {
    JsonText.field(b, name);
    b.append(c == null ? 0 : c.value());
  }
}
