package dev.resurfacer.cli;

import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.CompactionSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * Compaction options, named after Spark's rewrite_data_files options. Shared by plan and compact; they become one
 * {@link CompactionSettings}, which each format reads.
 */
final class CompactionFlags {
  @Option(
      names = "--target-file-size",
      paramLabel = "SIZE",
      description =
          "Target output file size (default: table's write.target-file-size-bytes, else 512MB).")
  String targetFileSize;

  @Option(
      names = "--min-file-size",
      paramLabel = "SIZE",
      description = "Files below this are rewritten (default 75%% of target).")
  String minFileSize;

  @Option(
      names = "--max-file-size",
      paramLabel = "SIZE",
      description = "Files above this are rewritten (default 180%% of target).")
  String maxFileSize;

  @Option(
      names = "--min-input-files",
      paramLabel = "N",
      description = "A partition needs at least N candidate files (default 5).")
  Integer minInputFiles;

  @Option(names = "--rewrite-all", description = "Rewrite every selected file regardless of size.")
  boolean rewriteAll;

  @Option(
      names = "--max-file-group-size",
      paramLabel = "SIZE",
      description = "Largest group of input bytes (default 100GB).")
  String maxFileGroupSize;

  @Option(
      names = "--delete-file-threshold",
      paramLabel = "N",
      description = "Rewrite files with at least N delete files (default off).")
  Integer deleteFileThreshold;

  @Option(
      names = "--delete-ratio-threshold",
      paramLabel = "RATIO",
      description = "Rewrite files whose deleted-row ratio reaches this (default 0.3).")
  Double deleteRatioThreshold;

  @Option(
      names = "--partial-progress",
      description = "Commit groups as they finish, in up to --max-commits commits.")
  boolean partialProgress;

  @Option(
      names = "--max-commits",
      paramLabel = "N",
      description = "Partial-progress commits (default 10).")
  Integer maxCommits;

  @Option(
      names = "--min-partition-idle",
      paramLabel = "DURATION",
      description =
          "Only partitions no writer changed (data or delete commit) within this time, e.g. 10m; the busy ones are left for a later run.")
  String minPartitionIdle;

  @Option(
      names = "--commit-every-groups",
      paramLabel = "N",
      description =
          "Commit as soon as N verified groups wait (Iceberg; a Delta bin is always its own commit).")
  Integer commitEveryGroups;

  @Option(
      names = "--commit-every",
      paramLabel = "DURATION",
      description =
          "Commit the verified groups waiting once this long has passed since the last commit, e.g. 30s (Iceberg).")
  String commitEvery;

  @Option(
      names = "--max-concurrent",
      paramLabel = "N",
      description =
          "Groups rewritten at once (default 5; the cores on local files with at least twice as many groups, one when they are large groups to sort).")
  Integer maxConcurrent;

  @Option(
      names = "--output-spec-id",
      paramLabel = "ID",
      description = "Partition spec of the output files (default: current).")
  Integer outputSpecId;

  @Option(
      names = "--option",
      paramLabel = "KEY=VALUE",
      description = "Any rewrite_data_files option by its Spark name.")
  Map<String, String> extra = new LinkedHashMap<>();

  @Option(
      names = "--where",
      paramLabel = "FILTER",
      description = "Only files that may hold matching rows, e.g. \"ts >= '2026-10-01T00:00:00'\".")
  String where;

  @Option(
      names = "--partition",
      paramLabel = "PATH",
      description =
          "Only this partition (its path as shown by plan, e.g. ts_day=2026-10-01; a leading part of a multi-level path selects every partition under it).")
  String partition;

  @Option(
      names = "--strategy",
      paramLabel = "STRATEGY",
      description = "binpack, sort or zorder (default: ${DEFAULT-VALUE}).",
      defaultValue = "binpack")
  String strategy;

  @Option(
      names = "--sort-by",
      paramLabel = "ORDER",
      description =
          "With --strategy sort: \"col [ASC|DESC] [NULLS FIRST|LAST], ...\"; terms may be day(ts), bucket(16, id), truncate(4, s). Default: the table's sort order.")
  String sortBy;

  @Option(
      names = "--columns",
      paramLabel = "A,B",
      description = {
        "With --strategy zorder: the columns to interleave;",
        "a name holding ',' or blanks in backticks: --columns 'id,`a,b`'."
      })
  java.util.List<String> columns = new java.util.ArrayList<>();

  @Option(
      names = "--runner",
      paramLabel = "RUNNER",
      description = "auto, duckdb or generic (default: ${DEFAULT-VALUE}).",
      defaultValue = "auto")
  String runner;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      description =
          "Memory budget shared by concurrent groups; beyond it DuckDB spills to disk (default: 1/4 of RAM, at most 8GB).")
  String memory;

  @Option(
      names = "--verify",
      paramLabel = "MODE",
      arity = "0..1",
      fallbackValue = "content",
      defaultValue = "content",
      description =
          "What must match before a group commits: content (every value of the input and of the new files, "
              + "each read independently of the runner) or count (live row counts only, faster). Default: ${DEFAULT-VALUE}.")
  String verify;

  /** The settings these flags give, with the flags the user set (in declaration order) as {@code spec} parsed them. */
  CompactionSettings settings(CommandSpec spec) {
    List<String> given = new ArrayList<>();
    for (OptionSpec o : spec.mixins().get("flags").options()) {
      if (spec.commandLine().getParseResult().hasMatchedOption(o.longestName())) {
        given.add(o.longestName());
      }
    }
    return new CompactionSettings(
        new CompactionSettings.Sizes(targetFileSize, minFileSize, maxFileSize, maxFileGroupSize),
        new CompactionSettings.Grouping(
            minInputFiles,
            rewriteAll,
            deleteFileThreshold,
            deleteRatioThreshold,
            maxConcurrent,
            outputSpecId),
        new CompactionSettings.Commits(
            partialProgress, maxCommits, minPartitionIdle, commitEveryGroups, commitEvery),
        extra,
        new CompactionSettings.Selection(where, partition),
        new CompactionSettings.Layout(strategy, sortBy, columns),
        new CompactionSettings.Running(runner, memory, verify),
        given);
  }

  /**
   * The same request as the operation record a policy builds, for an execution engine other than
   * local; the options are checked exactly as for a local run of an Iceberg table first.
   */
  Compact toOperation(CommandSpec spec) {
    CompactionSettings settings = settings(spec);
    dev.resurfacer.iceberg.compact.CompactionOptions.of(settings);
    return settings.toOperation();
  }
}
