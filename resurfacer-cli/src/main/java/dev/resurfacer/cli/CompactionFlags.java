package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.filter.FilterParser;
import dev.resurfacer.units.ByteSizes;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** Compaction options, named after Spark's rewrite_data_files options. Shared by plan and compact. */
final class CompactionFlags {
  @Option(names = "--target-file-size", paramLabel = "SIZE", description = "Target output file size (default: table's write.target-file-size-bytes, else 512MB).")
  String targetFileSize;

  @Option(names = "--min-file-size", paramLabel = "SIZE", description = "Files below this are rewritten (default 75%% of target).")
  String minFileSize;

  @Option(names = "--max-file-size", paramLabel = "SIZE", description = "Files above this are rewritten (default 180%% of target).")
  String maxFileSize;

  @Option(names = "--min-input-files", paramLabel = "N", description = "A partition needs at least N candidate files (default 5).")
  Integer minInputFiles;

  @Option(names = "--rewrite-all", description = "Rewrite every selected file regardless of size.")
  boolean rewriteAll;

  @Option(names = "--max-file-group-size", paramLabel = "SIZE", description = "Largest group of input bytes (default 100GB).")
  String maxFileGroupSize;

  @Option(names = "--delete-file-threshold", paramLabel = "N", description = "Rewrite files with at least N delete files (default off).")
  Integer deleteFileThreshold;

  @Option(names = "--delete-ratio-threshold", paramLabel = "RATIO", description = "Rewrite files whose deleted-row ratio reaches this (default 0.3).")
  Double deleteRatioThreshold;

  @Option(names = "--partial-progress", description = "Commit groups as they finish, in up to --max-commits commits.")
  boolean partialProgress;

  @Option(names = "--max-commits", paramLabel = "N", description = "Partial-progress commits (default 10).")
  Integer maxCommits;

  @Option(names = "--min-partition-idle", paramLabel = "DURATION", description = "Only partitions no writer changed (data or delete commit) within this time, e.g. 10m; the busy ones are left for a later run.")
  String minPartitionIdle;

  @Option(names = "--commit-every-groups", paramLabel = "N", description = "Commit as soon as N verified groups wait (Iceberg; a Delta bin is always its own commit).")
  Integer commitEveryGroups;

  @Option(names = "--commit-every", paramLabel = "DURATION", description = "Commit the verified groups waiting once this long has passed since the last commit, e.g. 30s (Iceberg).")
  String commitEvery;

  @Option(names = "--max-concurrent", paramLabel = "N", description = "Groups rewritten at once (default 5).")
  Integer maxConcurrent;

  @Option(names = "--output-spec-id", paramLabel = "ID", description = "Partition spec of the output files (default: current).")
  Integer outputSpecId;

  @Option(names = "--option", paramLabel = "KEY=VALUE", description = "Any rewrite_data_files option by its Spark name.")
  Map<String, String> extra = new LinkedHashMap<>();

  @Option(names = "--where", paramLabel = "FILTER", description = "Only files that may hold matching rows, e.g. \"ts >= '2026-10-01T00:00:00'\".")
  String where;

  @Option(names = "--partition", paramLabel = "PATH", description = "Only this partition (its path as shown by plan, e.g. ts_day=2026-10-01; a leading part of a multi-level path selects every partition under it).")
  String partition;

  @Option(names = "--strategy", paramLabel = "STRATEGY", description = "binpack, sort or zorder (default: ${DEFAULT-VALUE}).", defaultValue = "binpack")
  String strategy;

  @Option(names = "--sort-by", paramLabel = "ORDER", description = "With --strategy sort: \"col [ASC|DESC] [NULLS FIRST|LAST], ...\"; terms may be day(ts), bucket(16, id), truncate(4, s). Default: the table's sort order.")
  String sortBy;

  @Option(names = "--columns", paramLabel = "A,B", description = {"With --strategy zorder: the columns to interleave;",
      "a name holding ',' or blanks in backticks: --columns 'id,`a,b`'."})
  java.util.List<String> columns = new java.util.ArrayList<>();

  @Option(names = "--runner", paramLabel = "RUNNER", description = "auto, duckdb or generic (default: ${DEFAULT-VALUE}).", defaultValue = "auto")
  String runner;

  @Option(names = "--memory", paramLabel = "SIZE", description = "Memory budget shared by concurrent groups; beyond it DuckDB spills to disk (default: 1/4 of RAM, at most 8GB).")
  String memory;

  @Option(names = "--verify", paramLabel = "MODE", arity = "0..1", fallbackValue = "content", defaultValue = "content",
      description = "What must match before a group commits: content (every value, read back by Iceberg's own reader) "
          + "or count (row count only, faster). Default: ${DEFAULT-VALUE}.")
  String verify;

  /**
   * The same request as the operation record a policy builds, for an execution engine other than
   * local. Flags that only our runners know (--runner, --memory, --verify) stay with the local engine;
   * the options are checked exactly as for a local run first.
   */
  dev.resurfacer.maintain.Compact toOperation() {
    toOptions();
    String order = switch (strategy.toLowerCase(java.util.Locale.ROOT)) {
      case "sort" -> sortBy;
      case "zorder" -> String.join(",", columns);
      default -> null;
    };
    Map<String, String> options = sparkOptions();
    // the row filter and the partition travel as text: each engine renders them its own way (Trino: a typed WHERE)
    if (where != null && !where.isBlank()) {
      options.put(dev.resurfacer.maintain.Compact.WHERE, where);
    }
    if (partition != null && !partition.isBlank()) {
      options.put(dev.resurfacer.maintain.Compact.PARTITION, partition);
    }
    return new dev.resurfacer.maintain.Compact(strategy.toLowerCase(java.util.Locale.ROOT), order, options);
  }

  /** The rewrite options by their Spark {@code rewrite_data_files} names. */
  private Map<String, String> sparkOptions() {
    Map<String, String> opts = new LinkedHashMap<>(extra);
    putSize(opts, "target-file-size-bytes", targetFileSize, "--target-file-size");
    putSize(opts, "min-file-size-bytes", minFileSize, "--min-file-size");
    putSize(opts, "max-file-size-bytes", maxFileSize, "--max-file-size");
    putSize(opts, "max-file-group-size-bytes", maxFileGroupSize, "--max-file-group-size");
    if (minInputFiles != null) {
      positive(minInputFiles, "--min-input-files");
      opts.put("min-input-files", minInputFiles.toString());
    }
    if (rewriteAll) {
      opts.put("rewrite-all", "true");
    }
    if (deleteFileThreshold != null) {
      positive(deleteFileThreshold, "--delete-file-threshold");
      opts.put("delete-file-threshold", deleteFileThreshold.toString());
    }
    if (deleteRatioThreshold != null) {
      if (deleteRatioThreshold <= 0 || deleteRatioThreshold > 1) {
        throw new UsageException("--delete-ratio-threshold must be in (0, 1] (got " + deleteRatioThreshold + ")");
      }
      opts.put("delete-ratio-threshold", deleteRatioThreshold.toString());
    }
    if (partialProgress) {
      opts.put("partial-progress.enabled", "true");
    }
    if (maxCommits != null) {
      positive(maxCommits, "--max-commits");
      opts.put("partial-progress.max-commits", maxCommits.toString());
    }
    if (maxConcurrent != null) {
      positive(maxConcurrent, "--max-concurrent");
      opts.put("max-concurrent-file-group-rewrites", maxConcurrent.toString());
    }
    if (minPartitionIdle != null) {
      opts.put(CompactionOptions.MIN_PARTITION_IDLE, minPartitionIdle);
    }
    if (commitEveryGroups != null) {
      positive(commitEveryGroups, "--commit-every-groups");
      opts.put(CompactionOptions.COMMIT_EVERY_GROUPS, commitEveryGroups.toString());
    }
    if (commitEvery != null) {
      opts.put(CompactionOptions.COMMIT_EVERY, commitEvery);
    }
    if (outputSpecId != null) {
      opts.put("output-spec-id", outputSpecId.toString());
    }
    return opts;
  }

  CompactionOptions toOptions() {
    CompactionOptions o = CompactionOptions.defaults();
    Map<String, String> opts = sparkOptions();
    for (Map.Entry<String, String> e : opts.entrySet()) {
      o = o.withOption(e.getKey(), e.getValue());
    }
    o = o.withFilter(FilterParser.parse(where)).withPartition(partition).withVerification(switch (verify.toLowerCase(java.util.Locale.ROOT)) {
      case "content" -> CompactionOptions.Verification.CONTENT;
      case "count" -> CompactionOptions.Verification.COUNT;
      default -> throw new UsageException("--verify must be content or count (got '" + verify + "')");
    });
    o = o.withRunner(switch (runner.toLowerCase(java.util.Locale.ROOT)) {
      case "auto" -> CompactionOptions.Runner.AUTO;
      case "duckdb" -> CompactionOptions.Runner.DUCKDB;
      case "generic" -> CompactionOptions.Runner.GENERIC;
      default -> throw new UsageException("--runner must be auto, duckdb or generic (got '" + runner + "')");
    });
    o = o.withOrdering(switch (strategy.toLowerCase(java.util.Locale.ROOT)) {
      case "binpack" -> {
        if (sortBy != null || !columns.isEmpty()) {
          throw new UsageException("--sort-by needs --strategy sort and --columns needs --strategy zorder");
        }
        yield new dev.resurfacer.iceberg.compact.Ordering.BinPack();
      }
      case "sort" -> {
        if (!columns.isEmpty()) {
          throw new UsageException("--columns is for --strategy zorder; use --sort-by with --strategy sort");
        }
        yield new dev.resurfacer.iceberg.compact.Ordering.Sort(sortBy);
      }
      case "zorder" -> {
        if (sortBy != null) {
          throw new UsageException("--sort-by is for --strategy sort; use --columns with --strategy zorder");
        }
        if (columns.isEmpty()) {
          throw new UsageException("--strategy zorder needs --columns a,b[,c...]");
        }
        yield new dev.resurfacer.iceberg.compact.Ordering.ZOrder(dev.resurfacer.names.Identifiers.splitLists(columns, "--columns"));
      }
      default -> throw new UsageException("--strategy must be binpack, sort or zorder (got '" + strategy + "')");
    });
    if (memory != null) {
      o = o.withMemory(ByteSizes.parse(memory));
    }
    return o;
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

  private static void positive(int n, String flag) {
    if (n < 1) {
      throw new UsageException(flag + " must be at least 1 (got " + n + ")");
    }
  }
}
