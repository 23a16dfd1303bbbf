package dev.resurfacer.maintain;

import java.util.List;

/** Distinct-value sketches per column on the current snapshot; no columns means every primitive top-level column. */
public record ComputeStats(List<String> columns) implements Operation {
  public ComputeStats {
    columns = List.copyOf(columns);
  }

  @Override
  public String name() {
    return "compute-stats";
  }

  @Override
  public int order() {
    return COMPUTE_STATS;
  }
}
