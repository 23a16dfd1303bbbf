package dev.resurfacer.units;

import java.lang.management.ManagementFactory;

/** The default {@code --memory} of the runners that rewrite data (DuckDB's memory_limit): both formats share it. */
public final class MemoryBudget {
  /** Below this DuckDB cannot hold a sort run or a Parquet row group reliably. */
  public static final long MINIMUM_BYTES = 64L << 20;

  private MemoryBudget() {}

  /** A quarter of physical memory, at least 256 MB and at most 8 GB. */
  public static long defaultBytes() {
    long physical = 4L << 30;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      physical = os.getTotalMemorySize();
    }
    return Math.max(256L << 20, Math.min(8L << 30, physical / 4));
  }
}
