package dev.resurfacer.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Compaction options by their Spark {@code rewrite_data_files} names, read with Spark's defaults: the one reading
 * of a value both formats share, whether the map came from flags ({@link CompactionSettings#sparkOptions}), a
 * policy's {@code compact:} section or a library caller. Options only a format knows are read by that format.
 */
public record RewriteOptions(Map<String, String> values) {
  public static final String TARGET_FILE_SIZE_BYTES = "target-file-size-bytes";
  public static final String MIN_FILE_SIZE_BYTES = "min-file-size-bytes";
  public static final String DELETE_RATIO_THRESHOLD = "delete-ratio-threshold";
  public static final String PARTIAL_PROGRESS_ENABLED = "partial-progress.enabled";
  public static final String PARTIAL_PROGRESS_MAX_COMMITS = "partial-progress.max-commits";
  public static final String MAX_CONCURRENT_FILE_GROUP_REWRITES =
      "max-concurrent-file-group-rewrites";

  public RewriteOptions {
    values = Map.copyOf(values);
  }

  public boolean partialProgress() {
    return Boolean.parseBoolean(values.getOrDefault(PARTIAL_PROGRESS_ENABLED, "false"));
  }

  public int maxCommits() {
    return positiveInt(PARTIAL_PROGRESS_MAX_COMMITS, 10);
  }

  public int maxConcurrentGroups() {
    return positiveInt(MAX_CONCURRENT_FILE_GROUP_REWRITES, 5);
  }

  /** The idle time {@code min-partition-idle} asks of a partition, when set. */
  public Optional<Duration> minPartitionIdle() {
    return duration(CompactionSettings.MIN_PARTITION_IDLE);
  }

  /** {@code commit-every}: the longest a verified group waits for its commit, counted from the last commit. */
  public Optional<Duration> commitEvery() {
    return duration(CompactionSettings.COMMIT_EVERY);
  }

  /**
   * Groups per commit: {@code commit-every-groups}; else with partial progress the groups shared out
   * over {@code partial-progress.max-commits} commits; else all in one commit.
   */
  public int groupsPerCommit(int groups) {
    if (values.containsKey(CompactionSettings.COMMIT_EVERY_GROUPS)) {
      return positiveInt(CompactionSettings.COMMIT_EVERY_GROUPS, 1);
    }
    return partialProgress() ? (int) Math.ceil(groups / (double) maxCommits()) : Integer.MAX_VALUE;
  }

  /** {@code target-file-size-bytes} (a plain byte count, or a size such as {@code 256MB}), when set. */
  public OptionalLong targetFileSize() {
    return size(TARGET_FILE_SIZE_BYTES);
  }

  /** {@code min-file-size-bytes} (a plain byte count, or a size such as {@code 96MB}), when set. */
  public OptionalLong minFileSize() {
    return size(MIN_FILE_SIZE_BYTES);
  }

  private OptionalLong size(String key) {
    String v = values.get(key);
    return v == null ? OptionalLong.empty() : OptionalLong.of(ByteSizes.parse(v.strip()));
  }

  /** {@code delete-ratio-threshold}, or {@code dflt} when unset. */
  public double deleteRatioThreshold(double dflt) {
    String v = values.get(DELETE_RATIO_THRESHOLD);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new UsageException(
          DELETE_RATIO_THRESHOLD + " must be a number in (0, 1] (got '" + v + "')");
    }
  }

  public int positiveInt(String key, int dflt) {
    String v = values.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < 1) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(key + " must be a positive integer (got '" + v + "')");
    }
  }

  public Optional<Duration> duration(String key) {
    String v = values.get(key);
    if (v == null) {
      return Optional.empty();
    }
    try {
      Duration d = Durations.parse(v.strip());
      if (!d.isNegative() && !d.isZero()) {
        return Optional.of(d);
      }
    } catch (RuntimeException e) {
      // reported below, with the option's name
    }
    throw new UsageException(
        key + " must be a positive duration such as 30s, 10m or 2h (got '" + v + "')");
  }
}
