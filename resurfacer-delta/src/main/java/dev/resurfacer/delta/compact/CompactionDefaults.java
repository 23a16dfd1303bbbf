package dev.resurfacer.delta.compact;

import dev.resurfacer.UsageException;
import java.util.Map;

/**
 * Compaction sizes for Delta tables. The target is the table's {@code delta.targetFileSize}; without
 * it 100 MiB, delta-rs's default (Spark's OPTIMIZE aims at 1 GiB, too large for one machine's
 * verification pass).
 */
public final class CompactionDefaults {
  public static final String TARGET_FILE_SIZE = "delta.targetFileSize";
  public static final long DEFAULT_TARGET_FILE_SIZE = 100L << 20;

  private CompactionDefaults() {}

  public static long targetFileSize(Map<String, String> properties) {
    String v = properties.get(TARGET_FILE_SIZE);
    if (v == null) {
      return DEFAULT_TARGET_FILE_SIZE;
    }
    try {
      long n = dev.resurfacer.units.ByteSizes.parse(v.trim());
      if (n <= 0) {
        throw new UsageException(TARGET_FILE_SIZE + " = '" + v + "' must be positive");
      }
      return n;
    } catch (RuntimeException e) {
      if (e instanceof UsageException u) {
        throw u;
      }
      throw new UsageException(TARGET_FILE_SIZE + " = '" + v + "' is not a size");
    }
  }
}
