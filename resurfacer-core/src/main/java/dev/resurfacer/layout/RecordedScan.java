package dev.resurfacer.layout;

import java.time.Instant;
import java.util.List;

/**
 * One scan an engine planned, as a line of docs/scan-reports.md records it.
 *
 * @param snapshotId the table version scanned (Iceberg snapshot id, Delta version), -1 when unknown
 * @param filterValues whether the filter holds the query's literals (false: Iceberg's sanitized form)
 */
public record RecordedScan(
    String table,
    Instant time,
    long snapshotId,
    ScanFilter filter,
    boolean filterValues,
    List<String> projected,
    long dataFilesScanned,
    long dataFilesSkipped,
    long bytesScanned) {
  public RecordedScan {
    projected = List.copyOf(projected);
  }
}
