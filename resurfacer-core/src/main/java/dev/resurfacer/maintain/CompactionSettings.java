package dev.resurfacer.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.units.ByteSizes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a compaction was asked for, whichever the table's format: by {@code plan}'s and {@code compact}'s flags
 * as the user wrote them (with which flags were given), or by a {@link Compact} step ({@link #of(Compact)}: a
 * policy's {@code compact:} section, a layout decision, a library caller). The format-neutral checks, the
 * Spark-named option map and its reading ({@link RewriteOptions}) are here, once; each format turns the settings
 * into what its planner needs ({@code CompactionOptions.of(settings)} in resurfacer-iceberg and resurfacer-delta)
 * and refuses what does not apply to it.
 *
 * @param sizes the file sizes asked for, as written ({@code 128MB})
 * @param grouping which files a group takes and how groups are written
 * @param commits how a long run commits as it goes
 * @param extra Spark-named options as given ({@code --option}); for a step, all of its rewrite options
 * @param selection which rows or partition the run is limited to
 * @param layout the strategy and its ordering
 * @param running how our runners rewrite and verify: flags the other engines do not have
 * @param given the long names of the flags the user set ({@code --where}, {@code --runner}, ...), in the order the
 *     command declares them; empty for a step
 * @param origin whose words an error uses: the flags' or the policy's
 */
public record CompactionSettings(
    Sizes sizes,
    Grouping grouping,
    Commits commits,
    Map<String, String> extra,
    Selection selection,
    Layout layout,
    Running running,
    List<String> given,
    Origin origin) {
  /**
   * The sizes by their own names ({@code --target-file-size}), as written; null where not given.
   *
   * @param targetFile {@code target-file-size}
   * @param minFile {@code min-file-size}
   * @param maxFile {@code max-file-size}
   * @param maxFileGroup {@code max-file-group-size}
   */
  public record Sizes(String targetFile, String minFile, String maxFile, String maxFileGroup) {
    public static final Sizes NONE = new Sizes(null, null, null, null);
  }

  /**
   * Which files a group takes and how groups are written; null where not given.
   *
   * @param outputSpecId the partition spec the rewritten files are written in
   */
  public record Grouping(
      Integer minInputFiles,
      boolean rewriteAll,
      Integer deleteFileThreshold,
      Double deleteRatioThreshold,
      Integer maxConcurrent,
      Integer outputSpecId) {
    public static final Grouping NONE = new Grouping(null, false, null, null, null, null);
  }

  /**
   * How a long run commits as it goes; null where not given.
   *
   * @param minPartitionIdle {@link #MIN_PARTITION_IDLE}, as written
   * @param commitEveryGroups {@link #COMMIT_EVERY_GROUPS}
   * @param commitEvery {@link #COMMIT_EVERY}, as written
   */
  public record Commits(
      boolean partialProgress,
      Integer maxCommits,
      String minPartitionIdle,
      Integer commitEveryGroups,
      String commitEvery) {
    public static final Commits NONE = new Commits(false, null, null, null, null);
  }

  /**
   * Which rows or partition the run is limited to: {@code --where}'s predicate and {@code --partition}'s value as
   * written, or null.
   */
  public record Selection(String where, String partition) {
    public static final Selection ALL = new Selection(null, null);
  }

  /**
   * The strategy and its ordering.
   *
   * @param strategy binpack, sort or zorder, as written
   * @param sortBy the sort order of {@code sort}, as written, or null
   * @param columns the z-order columns of {@code zorder}, as written (each may list several)
   */
  public record Layout(String strategy, String sortBy, List<String> columns) {
    public static final Layout BIN_PACK = new Layout("binpack", null, List.of());

    public Layout {
      columns = List.copyOf(columns);
    }
  }

  /**
   * How our runners rewrite and verify: what only the local engine has.
   *
   * @param runner auto, duckdb, generic or a format's own name for its generic runner
   * @param memory the memory budget as written, or null for the default
   * @param verify content or count
   */
  public record Running(String runner, String memory, String verify) {
    public static final Running DEFAULTS = new Running("auto", null, "content");
  }

  /** Ours: leave a partition a writer changed within this time ({@code 10m}, {@code 2h}) for a later run. */
  public static final String MIN_PARTITION_IDLE = "min-partition-idle";
  /** Ours: commit as soon as this many verified groups wait (a long run makes progress in bounded pieces). */
  public static final String COMMIT_EVERY_GROUPS = "commit-every-groups";
  /** Ours: commit the verified groups waiting once this long ({@code 30s}, {@code 5m}) has passed since the last commit. */
  public static final String COMMIT_EVERY = "commit-every";

  /** The sizes by their own names (a policy's keys; the flags add {@code --}) and their Spark option names. */
  public static final Map<String, String> SIZE_OPTIONS = Map.of(
      "target-file-size", RewriteOptions.TARGET_FILE_SIZE_BYTES,
      "min-file-size", "min-file-size-bytes",
      "max-file-size", "max-file-size-bytes",
      "max-file-group-size", "max-file-group-size-bytes");

  /** The counts (at least 1) by their own names and their Spark option names. */
  public static final Map<String, String> COUNT_OPTIONS = Map.of(
      "min-input-files",
      "min-input-files",
      "delete-file-threshold",
      "delete-file-threshold",
      "max-commits",
      RewriteOptions.PARTIAL_PROGRESS_MAX_COMMITS,
      "commit-every-groups",
      COMMIT_EVERY_GROUPS,
      "max-concurrent",
      RewriteOptions.MAX_CONCURRENT_FILE_GROUP_REWRITES);

  /** The runners every format has: DuckDB, or the format's own reader and writer ({@code AUTO}: DuckDB where it is exact). */
  public enum RunnerChoice {
    AUTO,
    DUCKDB,
    GENERIC
  }

  /** What must match before a group commits: every value read back, or the row count only. */
  public enum VerifyChoice {
    CONTENT,
    COUNT
  }

  /** Where the settings came from, and so how an error names a setting. */
  public enum Origin {
    FLAGS("--strategy", "--columns"),
    STEP("compaction strategy", "zorder-columns");

    private final String strategySetting;
    private final String columnsSetting;

    Origin(String strategySetting, String columnsSetting) {
      this.strategySetting = strategySetting;
      this.columnsSetting = columnsSetting;
    }

    /** How an error names the strategy setting ({@code --strategy}, or {@code compaction strategy}). */
    public String strategySetting() {
      return strategySetting;
    }

    /** How an error names the z-order columns ({@code --columns}, or the policy's {@code zorder-columns}). */
    public String columnsSetting() {
      return columnsSetting;
    }
  }

  public CompactionSettings {
    extra = Map.copyOf(new LinkedHashMap<>(extra));
    given = List.copyOf(given);
  }

  /** The settings of {@code plan}'s and {@code compact}'s flags. */
  public CompactionSettings(
      Sizes sizes,
      Grouping grouping,
      Commits commits,
      Map<String, String> extra,
      Selection selection,
      Layout layout,
      Running running,
      List<String> given) {
    this(sizes, grouping, commits, extra, selection, layout, running, given, Origin.FLAGS);
  }

  /**
   * The settings a {@link Compact} step stands for: its Spark-named options (checked where the step was built, e.g.
   * by the policy), its ordering, and the {@link Compact#WHERE}/{@link Compact#PARTITION} selection it carries; the
   * {@code layout.*} settings are the maintenance run's, not the compaction's. The runners and verification are
   * the defaults: a step has no flags for them.
   */
  public static CompactionSettings of(Compact op) {
    Map<String, String> options = new LinkedHashMap<>(op.withoutLayoutSettings().options());
    String where = options.remove(Compact.WHERE);
    String partition = options.remove(Compact.PARTITION);
    String sortBy = op.strategy().equals("sort") ? op.orderBy() : null;
    List<String> columns =
        op.strategy().equals("zorder") && op.orderBy() != null ? List.of(op.orderBy()) : List.of();
    return new CompactionSettings(
        Sizes.NONE,
        Grouping.NONE,
        Commits.NONE,
        options,
        new Selection(where, partition),
        new Layout(op.strategy(), sortBy, columns),
        Running.DEFAULTS,
        List.of(),
        Origin.STEP);
  }

  /** {@code --runner}: auto, duckdb or generic, or one of {@code genericNames} (a format's own name for its generic runner). */
  public RunnerChoice runnerChoice(String... genericNames) {
    String name = running.runner().toLowerCase(Locale.ROOT);
    if (List.of(genericNames).contains(name)) {
      return RunnerChoice.GENERIC;
    }
    return chosen(RunnerChoice.class, "--runner", running.runner());
  }

  /** {@code --verify}: content or count. */
  public VerifyChoice verifyChoice() {
    return chosen(VerifyChoice.class, "--verify", running.verify());
  }

  /** The choice {@code given} names (its constant's name in any case), else a usage error listing the choices. */
  private static <E extends Enum<E>> E chosen(Class<E> choices, String flag, String given) {
    String name = given.toLowerCase(Locale.ROOT);
    List<String> names = new java.util.ArrayList<>();
    for (E choice : choices.getEnumConstants()) {
      String choiceName = choice.name().toLowerCase(Locale.ROOT);
      if (choiceName.equals(name)) {
        return choice;
      }
      names.add(choiceName);
    }
    String last = names.remove(names.size() - 1);
    throw new UsageException(
        flag + " must be " + String.join(", ", names) + " or " + last + " (got '" + given + "')");
  }

  /** The strategy, lower-cased. */
  public String strategyName() {
    return layout.strategy().toLowerCase(Locale.ROOT);
  }

  /**
   * The same request as the operation record a policy builds, for an execution engine other than local.
   * Flags that only our runners know (--runner, --memory, --verify) stay with the local engine.
   */
  public Compact toOperation() {
    String order = switch (strategyName()) {
      case "sort" -> layout.sortBy();
      case "zorder" -> String.join(",", layout.columns());
      default -> null;
    };
    Map<String, String> options = sparkOptions();
    // the row filter and the partition travel as text: each engine renders them its own way (Trino:
    // a typed WHERE)
    String where = selection.where();
    String partition = selection.partition();
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
    putSize(opts, "target-file-size", sizes.targetFile());
    putSize(opts, "min-file-size", sizes.minFile());
    putSize(opts, "max-file-size", sizes.maxFile());
    putSize(opts, "max-file-group-size", sizes.maxFileGroup());
    putPositive(opts, "min-input-files", grouping.minInputFiles());
    if (grouping.rewriteAll()) {
      opts.put("rewrite-all", "true");
    }
    putPositive(opts, "delete-file-threshold", grouping.deleteFileThreshold());
    Double deleteRatioThreshold = grouping.deleteRatioThreshold();
    if (deleteRatioThreshold != null) {
      if (deleteRatioThreshold <= 0 || deleteRatioThreshold > 1) {
        throw new UsageException(
            "--delete-ratio-threshold must be in (0, 1] (got " + deleteRatioThreshold + ")");
      }
      opts.put(RewriteOptions.DELETE_RATIO_THRESHOLD, deleteRatioThreshold.toString());
    }
    if (commits.partialProgress()) {
      opts.put(RewriteOptions.PARTIAL_PROGRESS_ENABLED, "true");
    }
    putPositive(opts, "max-commits", commits.maxCommits());
    putPositive(opts, "max-concurrent", grouping.maxConcurrent());
    if (commits.minPartitionIdle() != null) {
      opts.put(MIN_PARTITION_IDLE, commits.minPartitionIdle());
    }
    putPositive(opts, "commit-every-groups", commits.commitEveryGroups());
    if (commits.commitEvery() != null) {
      opts.put(COMMIT_EVERY, commits.commitEvery());
    }
    if (grouping.outputSpecId() != null) {
      opts.put("output-spec-id", grouping.outputSpecId().toString());
    }
    return opts;
  }

  /** {@link #sparkOptions}, to be read. */
  public RewriteOptions rewriteOptions() {
    return new RewriteOptions(sparkOptions());
  }

  /** {@code --memory} in bytes, when given. */
  public java.util.OptionalLong memoryBytes() {
    return running.memory() == null
        ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(ByteSizes.parse(running.memory()));
  }

  private static void putSize(Map<String, String> opts, String name, String value) {
    if (value != null) {
      String flag = "--" + name;
      long bytes = ByteSizes.parse(value);
      if (bytes <= 0) {
        throw new UsageException(flag + " must be greater than zero");
      }
      opts.put(SIZE_OPTIONS.get(name), Long.toString(bytes));
    }
  }

  private static void putPositive(Map<String, String> opts, String name, Integer n) {
    if (n != null) {
      if (n < 1) {
        throw new UsageException("--" + name + " must be at least 1 (got " + n + ")");
      }
      opts.put(COUNT_OPTIONS.get(name), n.toString());
    }
  }
}
