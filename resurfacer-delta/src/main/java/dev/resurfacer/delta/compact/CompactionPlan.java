package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.scan.LiveFile;
import java.util.List;
import java.util.Map;

/**
 * Bins of one partition's files to rewrite together, planned against {@code version}.
 *
 * @param zOrderColumns empty for bin-pack; otherwise each bin is a whole partition, written in z-value order
 * @param runner who rewrites the bins: {@code duckdb} (bounded by --memory) or {@code kernel} (in the heap)
 * @param runnerReason why that runner: the memory limit, or why DuckDB could not be exact or cannot reach the files
 * @param skipped why files were left alone (one line per reason)
 */
public record CompactionPlan(
    String table,
    long version,
    long targetFileSize,
    List<String> zOrderColumns,
    String runner,
    String runnerReason,
    List<Bin> bins,
    List<String> skipped)
    implements dev.resurfacer.report.Readout {
  @Override
  public String render() {
    return CompactionText.render(this);
  }

  /** The JSON form, also where a {@link CompactionResult} holds the plan. */
  @Override
  @com.fasterxml.jackson.annotation.JsonValue
  public Object json() {
    return CompactionText.PlanJson.of(this);
  }

  public CompactionPlan {
    zOrderColumns = List.copyOf(zOrderColumns);
    bins = List.copyOf(bins);
    skipped = List.copyOf(skipped);
  }

  public boolean zOrdered() {
    return !zOrderColumns.isEmpty();
  }

  public long inputFiles() {
    return bins.stream().mapToLong(b -> b.files().size()).sum();
  }

  public long inputBytes() {
    return bins.stream()
        .flatMap(b -> b.files().stream())
        .mapToLong(LiveFile::size)
        .sum();
  }

  public record Bin(Map<String, String> partition, List<LiveFile> files) {
    public Bin {
      files = List.copyOf(files);
    }
  }
}
