package dev.resurfacer.maintain;

/** Per-partition statistics on the current snapshot. */
public record ComputePartitionStats() implements Operation {
  @Override
  public String name() {
    return "compute-partition-stats";
  }

  @Override
  public int order() {
    return COMPUTE_PARTITION_STATS;
  }
}
