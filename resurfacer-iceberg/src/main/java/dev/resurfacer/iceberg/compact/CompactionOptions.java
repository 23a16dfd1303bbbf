package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.CompactionSettings;
import dev.resurfacer.maintain.RewriteOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * How to compact. {@code rewriteOptions} uses the names and defaults of Spark's
 * {@code rewrite_data_files} (target-file-size-bytes, min-input-files, delete-file-threshold,
 * partial-progress.enabled, ...): the planner reads them exactly as Spark's does.
 *
 * <pre>
 * CompactionOptions opts = CompactionOptions.defaults()
 *     .withOption("min-input-files", "2")
 *     .withFilter(Expressions.greaterThanOrEqual("ts", "2026-10-01T00:00:00"));
 * CompactionResult result = Compaction.execute(Compaction.plan(table, opts));
 * </pre>
 *
 * @param rewriteOptions Spark-named rewrite options
 * @param filter selects the files to consider (Iceberg expression on columns)
 * @param partition only the group of this partition path (e.g. {@code ts_day=2026-10-01}, or a leading part of a
 *     multi-level path such as {@code cat=a}, matched segment by segment); null for all
 * @param runner which runner rewrites each group
 * @param memoryBytes the memory budget shared by concurrent groups (DuckDB memory_limit)
 * @param verification what must match before a group commits: {@code CONTENT} (default) compares a
 *     type-tagged fingerprint of every value read back by Iceberg's generic reader, {@code COUNT} only the row count
 * @param scratchDir where groups stage remote files and spill
 * @param ordering bin-pack (default), sort or z-order
 */
public record CompactionOptions(
    Map<String, String> rewriteOptions,
    Expression filter,
    String partition,
    Runner runner,
    long memoryBytes,
    Verification verification,
    Path scratchDir,
    Ordering ordering) {

  /** {@code auto} uses DuckDB where it is faithful and the generic runner elsewhere. */
  public enum Runner {
    AUTO,
    DUCKDB,
    GENERIC
  }

  /** What is compared between a group's live input rows and the files written for it. */
  public enum Verification {
    /** Row count and a fingerprint of every value, both sides read by Iceberg's own reader. */
    CONTENT,
    /** Row count only: faster, for users who accept that values are not checked. */
    COUNT;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Ours: a group of at most this much input ({@code 32MB}, {@code 1048576}) takes the small path ({@link SmallGroups}); 0 never. */
  static final String SMALL_GROUP_BYTES = "small-group-bytes";

  /** Ours: leave a partition a writer changed within this time ({@code 10m}, {@code 2h}) for a later run. */
  public static final String MIN_PARTITION_IDLE = CompactionSettings.MIN_PARTITION_IDLE;
  /** Ours: commit as soon as this many verified groups wait (a long run makes progress in bounded pieces). */
  public static final String COMMIT_EVERY_GROUPS = CompactionSettings.COMMIT_EVERY_GROUPS;
  /** Ours: commit the verified groups waiting once this long ({@code 30s}, {@code 5m}) has passed since the last commit. */
  public static final String COMMIT_EVERY = CompactionSettings.COMMIT_EVERY;

  static final Set<String> OUR_OPTIONS = Set.of(
      SMALL_GROUP_BYTES,
      MIN_PARTITION_IDLE,
      COMMIT_EVERY_GROUPS,
      COMMIT_EVERY,
      RewriteDataFiles.PARTIAL_PROGRESS_ENABLED,
      RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS,
      RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES,
      RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER,
      RewriteDataFiles.OUTPUT_SPEC_ID);

  public CompactionOptions {
    rewriteOptions = Map.copyOf(rewriteOptions);
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(
        Map.of(),
        Expressions.alwaysTrue(),
        null,
        Runner.AUTO,
        defaultMemory(),
        Verification.CONTENT,
        Path.of(System.getProperty("java.io.tmpdir")),
        new Ordering.BinPack());
  }

  /** The options a maintenance {@link Compact} step stands for: its Spark-named options and its ordering. */
  public static CompactionOptions of(Compact op) {
    return of(CompactionSettings.of(op));
  }

  /**
   * The options {@code plan} and {@code compact} were given, or a step stands for: the format-neutral checks of
   * {@link CompactionSettings}, then the filter, verification, runner and ordering.
   */
  public static CompactionOptions of(CompactionSettings s) {
    CompactionOptions o = defaults();
    for (Map.Entry<String, String> e : s.sparkOptions().entrySet()) {
      o = o.withOption(e.getKey(), e.getValue());
    }
    o = o.withFilter(
            dev.resurfacer.iceberg.filter.FilterParser.parse(s.selection().where()))
        .withPartition(s.selection().partition())
        .withVerification(
            switch (s.verifyChoice()) {
              case CONTENT -> Verification.CONTENT;
              case COUNT -> Verification.COUNT;
            });
    o = o.withRunner(
        switch (s.runnerChoice()) {
          case AUTO -> Runner.AUTO;
          case DUCKDB -> Runner.DUCKDB;
          case GENERIC -> Runner.GENERIC;
        });
    o = o.withOrdering(
        switch (s.strategyName()) {
          case "binpack" -> {
            if (s.layout().sortBy() != null || !s.layout().columns().isEmpty()) {
              throw new UsageException(
                  "--sort-by needs --strategy sort and --columns needs --strategy zorder");
            }
            yield new Ordering.BinPack();
          }
          case "sort" -> {
            if (!s.layout().columns().isEmpty()) {
              throw new UsageException(
                  "--columns is for --strategy zorder; use --sort-by with --strategy sort");
            }
            yield new Ordering.Sort(s.layout().sortBy());
          }
          case "zorder" -> {
            if (s.layout().sortBy() != null) {
              throw new UsageException(
                  "--sort-by is for --strategy sort; use --columns with --strategy zorder");
            }
            if (s.layout().columns().isEmpty()) {
              throw new UsageException("--strategy zorder needs --columns a,b[,c...]");
            }
            yield new Ordering.ZOrder(dev.resurfacer.names.Identifiers.splitLists(
                s.layout().columns(), s.origin().columnsSetting()));
          }
          default ->
            throw new UsageException(s.origin().strategySetting()
                + " must be binpack, sort or zorder (got '" + s.layout().strategy() + "')");
        });
    if (s.running().memory() != null) {
      o = o.withMemory(s.memoryBytes().getAsLong());
    }
    return o;
  }

  /** A quarter of physical memory, at least 256 MB and at most 8 GB ({@link dev.resurfacer.units.MemoryBudget}). */
  public static long defaultMemory() {
    return dev.resurfacer.units.MemoryBudget.defaultBytes();
  }

  public CompactionOptions withOption(String name, String value) {
    Map<String, String> m = new LinkedHashMap<>(rewriteOptions);
    m.put(name, value);
    return new CompactionOptions(
        m, filter, partition, runner, memoryBytes, verification, scratchDir, ordering);
  }

  public CompactionOptions withFilter(Expression newFilter) {
    return new CompactionOptions(
        rewriteOptions,
        newFilter,
        partition,
        runner,
        memoryBytes,
        verification,
        scratchDir,
        ordering);
  }

  public CompactionOptions withPartition(String newPartition) {
    return new CompactionOptions(
        rewriteOptions,
        filter,
        newPartition,
        runner,
        memoryBytes,
        verification,
        scratchDir,
        ordering);
  }

  public CompactionOptions withRunner(Runner newRunner) {
    return new CompactionOptions(
        rewriteOptions,
        filter,
        partition,
        newRunner,
        memoryBytes,
        verification,
        scratchDir,
        ordering);
  }

  public CompactionOptions withMemory(long bytes) {
    if (bytes < (64L << 20)) {
      throw new UsageException("--memory must be at least 64MB");
    }
    return new CompactionOptions(
        rewriteOptions, filter, partition, runner, bytes, verification, scratchDir, ordering);
  }

  public CompactionOptions withVerification(Verification newVerification) {
    return new CompactionOptions(
        rewriteOptions,
        filter,
        partition,
        runner,
        memoryBytes,
        newVerification,
        scratchDir,
        ordering);
  }

  public CompactionOptions withScratchDir(Path dir) {
    return new CompactionOptions(
        rewriteOptions, filter, partition, runner, memoryBytes, verification, dir, ordering);
  }

  public CompactionOptions withOrdering(Ordering newOrdering) {
    return new CompactionOptions(
        rewriteOptions,
        filter,
        partition,
        runner,
        memoryBytes,
        verification,
        scratchDir,
        newOrdering);
  }

  /** The options both formats read alike: partial progress, commit pacing, concurrency, idle partitions. */
  RewriteOptions shared() {
    return new RewriteOptions(rewriteOptions);
  }

  /** A new directory under {@link #scratchDir} for one run's staged and spilled files; the caller removes it. */
  Path newScratchDir(String prefix) {
    try {
      java.nio.file.Files.createDirectories(scratchDir);
      return java.nio.file.Files.createTempDirectory(scratchDir, prefix);
    } catch (java.io.IOException e) {
      throw new UsageException("cannot create scratch directory under " + scratchDir);
    }
  }

  long smallGroupBytes() {
    String v = rewriteOptions.get(SMALL_GROUP_BYTES);
    try {
      return v == null ? SmallGroups.MAX_BYTES : dev.resurfacer.units.ByteSizes.parse(v);
    } catch (UsageException e) {
      throw new UsageException(SMALL_GROUP_BYTES + ": " + e.getMessage());
    }
  }

  boolean useStartingSequenceNumber() {
    return Boolean.parseBoolean(
        rewriteOptions.getOrDefault(RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER, "true"));
  }

  /** The options the core planner understands; the rest are ours or the commit manager's. */
  Map<String, String> plannerOptions(Set<String> valid) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : rewriteOptions.entrySet()) {
      if (valid.contains(e.getKey())) {
        out.put(e.getKey(), e.getValue());
      } else if (!OUR_OPTIONS.contains(e.getKey())) {
        throw new UsageException("unknown compaction option '" + e.getKey() + "' (known: "
            + String.join(", ", new java.util.TreeSet<>(union(valid))) + ")");
      }
    }
    if (rewriteOptions.containsKey(RewriteDataFiles.OUTPUT_SPEC_ID)) {
      out.put(RewriteDataFiles.OUTPUT_SPEC_ID, rewriteOptions.get(RewriteDataFiles.OUTPUT_SPEC_ID));
    }
    return out;
  }

  private static Set<String> union(Set<String> valid) {
    Set<String> all = new java.util.HashSet<>(valid);
    all.addAll(OUR_OPTIONS);
    return all;
  }
}
