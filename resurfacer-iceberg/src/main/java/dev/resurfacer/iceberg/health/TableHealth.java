package dev.resurfacer.iceberg.health;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;

/**
 * One table's health at its current snapshot. Serialized to JSON with snake_case names by the CLI
 * ({@code describe --output json}); the names are part of our stable output. Each part is
 * unwrapped into the one flat object that output has always been, in this order.
 */
public record TableHealth(
    String table,
    String location,
    @JsonUnwrapped Layout layout,
    @JsonUnwrapped History history,
    @JsonUnwrapped DataFiles data,
    @JsonUnwrapped Deletes deletes,
    @JsonUnwrapped Manifests manifests,
    @JsonUnwrapped Metadata metadata,
    Map<String, String> maintenanceProperties,
    List<Statistics> statistics)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return HealthText.render(this);
  }

  /** The format version, partition specs and sort orders, as {@code id: fields} strings. */
  public record Layout(
      int formatVersion, List<String> partitionSpecs, int defaultSpecId, List<String> sortOrders) {}

  /** The refs and the snapshots the metadata keeps; ages in milliseconds, null without a snapshot. */
  public record History(
      List<Ref> refs,
      int snapshots,
      Long currentSnapshotId,
      Long oldestSnapshotAgeMs,
      Long newestSnapshotAgeMs) {}

  /** Live data files: counts, sizes, and how many are small against the target size. */
  public record DataFiles(
      long dataFiles,
      long dataBytes,
      long dataRecords,
      long averageDataFileBytes,
      long targetFileSizeBytes,
      long smallDataFiles,
      List<SizeBucket> sizeHistogram) {}

  /** Live delete files: {@code deleteFiles} counts all three kinds. */
  public record Deletes(
      long deleteFiles,
      long deleteBytes,
      long positionDeleteFiles,
      long positionDeleteRecords,
      long deletionVectors,
      long deletionVectorRecords,
      long equalityDeleteFiles,
      long equalityDeleteRecords) {}

  /** The current snapshot's manifests. */
  public record Manifests(
      long manifests, long dataManifests, long deleteManifests, long manifestBytes) {}

  /** {@code metadata.json} files in the log and on disk; -1 where the store cannot list them. */
  public record Metadata(int metadataFiles, int metadataFilesOnDisk, long metadataBytes) {}

  /**
   * A statistics file the table metadata names: {@code kind} is {@code table} (Puffin, e.g. NDV
   * sketches) or {@code partition}; {@code current} when it belongs to the current snapshot.
   */
  public record Statistics(
      String kind, long snapshotId, boolean current, String path, long bytes, List<String> blobs) {}

  /** A named branch or tag and the snapshot it points at. */
  public record Ref(String name, String type, long snapshotId) {}

  /** Live data files whose size falls in [{@code minBytes}, {@code maxBytes}). */
  public record SizeBucket(String label, long minBytes, long maxBytes, long files, long bytes) {}
}
