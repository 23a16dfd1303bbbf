package dev.resurfacer.maintain;

/** Per-partition statistics on the current snapshot. */
public record ComputePartitionStats() implements SettingsFreeOperation {
  @Override
  public Kind kind() {
    return Kind.COMPUTE_PARTITION_STATS;
  }
}
