package dev.resurfacer.report;

import java.util.List;

/**
 * A table's shape at one moment, format-neutral: what the report compares before and after.
 *
 * @param sizeHistogram live data files by size, smallest bucket first
 */
public record TableStats(
    long dataFiles,
    long dataBytes,
    long dataRecords,
    long smallDataFiles,
    long deleteFiles,
    long deleteBytes,
    int snapshots,
    long manifests,
    long metadataBytes,
    List<SizeBucket> sizeHistogram) {

  public TableStats {
    sizeHistogram = List.copyOf(sizeHistogram);
  }

  /** Live data files whose size is in [{@code minBytes}, {@code maxBytes}). */
  public record SizeBucket(String label, long minBytes, long maxBytes, long files, long bytes) {}
}
