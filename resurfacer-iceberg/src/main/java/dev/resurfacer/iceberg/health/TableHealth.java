package dev.resurfacer.iceberg.health;

import java.util.List;
import java.util.Map;

/**
 * One table's health at its current snapshot. Serialized to JSON with snake_case names by the CLI
 * ({@code describe --output json}); the names are part of our stable output.
 */
public record TableHealth(
    String table,
    String location,
    int formatVersion,
    List<String> partitionSpecs,
    int defaultSpecId,
    List<String> sortOrders,
    List<Ref> refs,
    int snapshots,
    Long currentSnapshotId,
    Long oldestSnapshotAgeMs,
    Long newestSnapshotAgeMs,
    long dataFiles,
    long dataBytes,
    long dataRecords,
    long averageDataFileBytes,
    long targetFileSizeBytes,
    long smallDataFiles,
    List<SizeBucket> sizeHistogram,
    long deleteFiles,
    long deleteBytes,
    long positionDeleteFiles,
    long positionDeleteRecords,
    long deletionVectors,
    long deletionVectorRecords,
    long equalityDeleteFiles,
    long equalityDeleteRecords,
    long manifests,
    long dataManifests,
    long deleteManifests,
    long manifestBytes,
    int metadataFiles,
    int metadataFilesOnDisk,
    long metadataBytes,
    Map<String, String> maintenanceProperties,
    List<Statistics> statistics) implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return HealthText.render(this);
  }

  /**
   * A statistics file the table metadata names: {@code kind} is {@code table} (Puffin, e.g. NDV
   * sketches) or {@code partition}; {@code current} when it belongs to the current snapshot.
   */
  public record Statistics(String kind, long snapshotId, boolean current, String path, long bytes, List<String> blobs) {}

  /** A named branch or tag and the snapshot it points at. */
  public record Ref(String name, String type, long snapshotId) {}

  /** Live data files whose size falls in [{@code minBytes}, {@code maxBytes}). */
  public record SizeBucket(String label, long minBytes, long maxBytes, long files, long bytes) {}
}
