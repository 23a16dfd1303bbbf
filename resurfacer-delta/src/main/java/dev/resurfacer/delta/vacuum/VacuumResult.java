package dev.resurfacer.delta.vacuum;

import java.util.List;

/**
 * @param deleted files deleted
 * @param skipped previewed files left in place because they changed or became referenced since the preview
 */
public record VacuumResult(VacuumPlan plan, long deleted, long deletedBytes, List<String> skipped) {
  public VacuumResult {
    skipped = List.copyOf(skipped);
  }
}
