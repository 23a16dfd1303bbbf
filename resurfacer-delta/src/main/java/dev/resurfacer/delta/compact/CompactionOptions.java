package dev.resurfacer.delta.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.MemoryBudget;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * @param targetFileSize overrides the table's {@code delta.targetFileSize}
 * @param deletedRowRatio a file whose deletion vector deletes more than this share of its rows is
 *     rewritten even alone (its deleted rows are purged); 0.3 like our Iceberg compaction
 * @param zOrderColumns empty to bin-pack; otherwise every file of each matched partition is rewritten
 *     ordered by the z-value of these columns (docs/ordering.md), as Delta's {@code OPTIMIZE ZORDER BY}
 * @param where which partitions to compact (on partition columns only)
 * @param runner who reads and writes the rows: DuckDB (bounded by {@code memoryBytes}, spilling to
 *     {@code scratchDir}) or Kernel's own reader and writer (in the heap); {@code AUTO} takes DuckDB
 *     whenever it writes the table exactly
 * @param memoryBytes DuckDB's memory_limit for one bin
 * @param scratchDir where the DuckDB runner writes its output and spill before the files move into the table
 * @param minPartitionIdle when present, a partition a writer changed within this time is left for a later run
 *     ({@code min-partition-idle}, {@link IdlePartitions})
 */
public record CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio, List<String> zOrderColumns, PartitionFilter where,
    Runner runner, long memoryBytes, Path scratchDir, java.util.Optional<java.time.Duration> minPartitionIdle) {
  /** The policy option, as Iceberg compaction names it. */
  public static final String MIN_PARTITION_IDLE = dev.resurfacer.maintain.CompactionSettings.MIN_PARTITION_IDLE;

  public static final double DEFAULT_DELETED_ROW_RATIO = 0.3;

  public enum Runner { AUTO, DUCKDB, KERNEL }

  public CompactionOptions {
    zOrderColumns = List.copyOf(zOrderColumns);
    if (memoryBytes < MemoryBudget.MINIMUM_BYTES) {
      throw new UsageException("--memory must be at least " + ByteSizes.format(MemoryBudget.MINIMUM_BYTES) + " (got "
          + ByteSizes.format(memoryBytes) + ")");
    }
  }

  public CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio) {
    this(targetFileSize, deletedRowRatio, List.of(), PartitionFilter.ALL, Runner.AUTO, MemoryBudget.defaultBytes(),
        Path.of(System.getProperty("java.io.tmpdir")), java.util.Optional.empty());
  }

  /**
   * What Delta compaction reads of an operation record: the strategy (binpack or zorder with its columns),
   * {@code target-file-size-bytes} and {@code delete-ratio-threshold}; the other (Iceberg rewrite) options
   * have no Delta meaning and are not read, so one {@code defaults:} section can serve both formats.
   */
  public static CompactionOptions of(dev.resurfacer.maintain.Compact op) {
    java.util.Map<String, String> o = op.options();
    OptionalLong target = o.containsKey("target-file-size-bytes")
        ? OptionalLong.of(Long.parseLong(o.get("target-file-size-bytes"))) : OptionalLong.empty();
    double ratio = o.containsKey("delete-ratio-threshold") ? Double.parseDouble(o.get("delete-ratio-threshold")) : DEFAULT_DELETED_ROW_RATIO;
    CompactionOptions options = new CompactionOptions(target, ratio);
    if (o.containsKey(MIN_PARTITION_IDLE)) {
      options = options.minPartitionIdle(idle(o.get(MIN_PARTITION_IDLE)));
    }
    return switch (op.strategy()) {
      case "binpack" -> options;
      case "zorder" -> options.zOrder(dev.resurfacer.names.Identifiers.topLevelNames(java.util.List.of(op.orderBy()), "zorder-columns"));
      default -> throw new UsageException("compaction strategy " + op.strategy() + " does not apply to Delta tables (binpack or "
          + "zorder; Delta tables have no declared sort order)");
    };
  }

  private static final java.util.Set<String> APPLICABLE = java.util.Set.of("--target-file-size", "--delete-ratio-threshold",
      "--strategy", "--columns", "--where", "--runner", "--memory", "--min-partition-idle");

  /**
   * What {@code plan} and {@code compact} were given, for the Delta table whose {@code latest} snapshot (read once
   * the flags are checked) gives the schema and partition columns {@code --where} is read against: bin-pack or
   * z-order per partition; a flag that has no Delta meaning is refused.
   */
  public static CompactionOptions of(dev.resurfacer.maintain.CompactionSettings s,
      java.util.function.Supplier<io.delta.kernel.Snapshot> latest) {
    for (String flag : s.given()) {
      if (!APPLICABLE.contains(flag)) {
        throw new UsageException(flag + " does not apply to Delta tables (Delta compaction bin-packs or z-orders each "
            + "partition; it takes --target-file-size, --delete-ratio-threshold, --strategy binpack|zorder, --columns, --where, --runner, --memory, --min-partition-idle; each bin is its own commit)");
      }
    }
    String strategy = s.strategyName();
    if (!strategy.equals("binpack") && !strategy.equals("zorder")) {
      throw new UsageException("--strategy " + s.strategy() + " does not apply to Delta tables (binpack or zorder; Delta tables "
          + "have no declared sort order)");
    }
    if (strategy.equals("zorder") == s.columns().isEmpty()) {
      throw new UsageException(strategy.equals("zorder") ? "--strategy zorder needs --columns a,b" : "--columns needs --strategy zorder");
    }
    io.delta.kernel.Snapshot snapshot = latest.get();
    CompactionOptions options = new CompactionOptions(
        s.targetFileSize() == null ? OptionalLong.empty() : OptionalLong.of(ByteSizes.parse(s.targetFileSize())),
        s.deleteRatioThreshold() == null ? DEFAULT_DELETED_ROW_RATIO : s.deleteRatioThreshold())
        .zOrder(dev.resurfacer.names.Identifiers.topLevelNames(s.columns(), "--columns"))
        .where(DeltaWhere.parse(s.where(), snapshot.getSchema(), snapshot.getPartitionColumnNames()))
        .runner(switch (s.runner().toLowerCase(java.util.Locale.ROOT)) {
          case "auto" -> Runner.AUTO;
          case "duckdb" -> Runner.DUCKDB;
          // Delta's generic runner is Kernel's own reader and writer
          case "generic", "kernel" -> Runner.KERNEL;
          default -> throw new UsageException("--runner must be auto, duckdb or generic (got '" + s.runner() + "')");
        });
    if (s.memory() != null) {
      options = options.memory(s.memoryBytes().getAsLong());
    }
    if (s.minPartitionIdle() != null) {
      options = options.minPartitionIdle(idle(s.minPartitionIdle()));
    }
    return options;
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(OptionalLong.empty(), DEFAULT_DELETED_ROW_RATIO);
  }

  public CompactionOptions zOrder(List<String> columns) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, columns, where, runner, memoryBytes, scratchDir, minPartitionIdle);
  }

  public CompactionOptions where(PartitionFilter filter) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, filter, runner, memoryBytes, scratchDir, minPartitionIdle);
  }

  public CompactionOptions runner(Runner newRunner) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, where, newRunner, memoryBytes, scratchDir, minPartitionIdle);
  }

  public CompactionOptions memory(long bytes) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, where, runner, bytes, scratchDir, minPartitionIdle);
  }

  public CompactionOptions scratchDir(Path dir) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, where, runner, memoryBytes, dir, minPartitionIdle);
  }

  public CompactionOptions minPartitionIdle(java.time.Duration idle) {
    return new CompactionOptions(targetFileSize, deletedRowRatio, zOrderColumns, where, runner, memoryBytes, scratchDir,
        java.util.Optional.of(idle));
  }

  /** A {@code min-partition-idle} value ({@code 10m}, {@code 2h}): positive. */
  public static java.time.Duration idle(String text) {
    try {
      java.time.Duration d = dev.resurfacer.units.Durations.parse(text.strip());
      if (!d.isNegative() && !d.isZero()) {
        return d;
      }
    } catch (RuntimeException e) {
      // reported below, with the option's name
    }
    throw new UsageException(MIN_PARTITION_IDLE + " must be a positive duration such as 30s, 10m or 2h (got '" + text + "')");
  }

  public boolean zOrdered() {
    return !zOrderColumns.isEmpty();
  }
}
