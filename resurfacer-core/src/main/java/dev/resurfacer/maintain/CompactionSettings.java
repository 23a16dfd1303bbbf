package dev.resurfacer.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.units.ByteSizes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code plan} and {@code compact} were asked for, whichever the table's format: the flags as the user
 * wrote them (sizes and durations unparsed, so each format reports a bad value in its own words), and which
 * flags were given. The format-neutral checks and the Spark-named option map are here, once; each format turns
 * the settings into what its planner needs ({@code CompactionOptions.of(settings)} in resurfacer-iceberg and
 * resurfacer-delta) and refuses what does not apply to it.
 *
 * @param given the long names of the flags the user set ({@code --where}, {@code --runner}, ...), in the order the
 *     command declares them
 */
public record CompactionSettings(
    String targetFileSize,
    String minFileSize,
    String maxFileSize,
    Integer minInputFiles,
    boolean rewriteAll,
    String maxFileGroupSize,
    Integer deleteFileThreshold,
    Double deleteRatioThreshold,
    boolean partialProgress,
    Integer maxCommits,
    String minPartitionIdle,
    Integer commitEveryGroups,
    String commitEvery,
    Integer maxConcurrent,
    Integer outputSpecId,
    Map<String, String> extra,
    String where,
    String partition,
    String strategy,
    String sortBy,
    List<String> columns,
    String runner,
    String memory,
    String verify,
    List<String> given) {
  /** Ours: leave a partition a writer changed within this time ({@code 10m}, {@code 2h}) for a later run. */
  public static final String MIN_PARTITION_IDLE = "min-partition-idle";
  /** Ours: commit as soon as this many verified groups wait (a long run makes progress in bounded pieces). */
  public static final String COMMIT_EVERY_GROUPS = "commit-every-groups";
  /** Ours: commit the verified groups waiting once this long ({@code 30s}, {@code 5m}) has passed since the last commit. */
  public static final String COMMIT_EVERY = "commit-every";

  public CompactionSettings {
    extra = Map.copyOf(new LinkedHashMap<>(extra));
    columns = List.copyOf(columns);
    given = List.copyOf(given);
  }

  /** The strategy, lower-cased. */
  public String strategyName() {
    return strategy.toLowerCase(Locale.ROOT);
  }

  /**
   * The same request as the operation record a policy builds, for an execution engine other than local.
   * Flags that only our runners know (--runner, --memory, --verify) stay with the local engine.
   */
  public Compact toOperation() {
    String order = switch (strategyName()) {
      case "sort" -> sortBy;
      case "zorder" -> String.join(",", columns);
      default -> null;
    };
    Map<String, String> options = sparkOptions();
    // the row filter and the partition travel as text: each engine renders them its own way (Trino: a typed WHERE)
    if (where != null && !where.isBlank()) {
      options.put(Compact.WHERE, where);
    }
    if (partition != null && !partition.isBlank()) {
      options.put(Compact.PARTITION, partition);
    }
    return new Compact(strategyName(), order, options);
  }

  /** The rewrite options by their Spark {@code rewrite_data_files} names, the flags' values checked. */
  public Map<String, String> sparkOptions() {
    Map<String, String> opts = new LinkedHashMap<>(extra);
    putSize(opts, "target-file-size-bytes", targetFileSize, "--target-file-size");
    putSize(opts, "min-file-size-bytes", minFileSize, "--min-file-size");
    putSize(opts, "max-file-size-bytes", maxFileSize, "--max-file-size");
    putSize(opts, "max-file-group-size-bytes", maxFileGroupSize, "--max-file-group-size");
    putPositive(opts, "min-input-files", minInputFiles, "--min-input-files");
    if (rewriteAll) {
      opts.put("rewrite-all", "true");
    }
    putPositive(opts, "delete-file-threshold", deleteFileThreshold, "--delete-file-threshold");
    if (deleteRatioThreshold != null) {
      if (deleteRatioThreshold <= 0 || deleteRatioThreshold > 1) {
        throw new UsageException("--delete-ratio-threshold must be in (0, 1] (got " + deleteRatioThreshold + ")");
      }
      opts.put("delete-ratio-threshold", deleteRatioThreshold.toString());
    }
    if (partialProgress) {
      opts.put("partial-progress.enabled", "true");
    }
    putPositive(opts, "partial-progress.max-commits", maxCommits, "--max-commits");
    putPositive(opts, "max-concurrent-file-group-rewrites", maxConcurrent, "--max-concurrent");
    if (minPartitionIdle != null) {
      opts.put(MIN_PARTITION_IDLE, minPartitionIdle);
    }
    putPositive(opts, COMMIT_EVERY_GROUPS, commitEveryGroups, "--commit-every-groups");
    if (commitEvery != null) {
      opts.put(COMMIT_EVERY, commitEvery);
    }
    if (outputSpecId != null) {
      opts.put("output-spec-id", outputSpecId.toString());
    }
    return opts;
  }

  /** {@code --memory} in bytes, when given. */
  public java.util.OptionalLong memoryBytes() {
    return memory == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(ByteSizes.parse(memory));
  }

  private static void putSize(Map<String, String> opts, String key, String value, String flag) {
    if (value != null) {
      long bytes = ByteSizes.parse(value);
      if (bytes <= 0) {
        throw new UsageException(flag + " must be greater than zero");
      }
      opts.put(key, Long.toString(bytes));
    }
  }

  private static void putPositive(Map<String, String> opts, String key, Integer n, String flag) {
    if (n != null) {
      if (n < 1) {
        throw new UsageException(flag + " must be at least 1 (got " + n + ")");
      }
      opts.put(key, n.toString());
    }
  }
}
