package dev.resurfacer.delta.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.CompactionSettings;
import dev.resurfacer.maintain.RewriteOptions;
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
 * @param verification what must match before a bin commits: every value ({@code CONTENT}, the default) or the
 *     live row count the log's stats give ({@code COUNT}; a bin with an input file the log has no row count for is
 *     verified by content)
 */
public record CompactionOptions(
    OptionalLong targetFileSize,
    double deletedRowRatio,
    List<String> zOrderColumns,
    PartitionFilter where,
    Runner runner,
    long memoryBytes,
    Path scratchDir,
    java.util.Optional<java.time.Duration> minPartitionIdle,
    Verification verification) {
  /** The policy option, as Iceberg compaction names it. */
  public static final String MIN_PARTITION_IDLE = CompactionSettings.MIN_PARTITION_IDLE;

  public static final double DEFAULT_DELETED_ROW_RATIO = 0.3;

  public enum Runner {
    AUTO,
    DUCKDB,
    KERNEL
  }

  /** What must match before a bin commits ({@code --verify}). */
  public enum Verification {
    CONTENT,
    COUNT
  }

  public CompactionOptions {
    zOrderColumns = List.copyOf(zOrderColumns);
    if (memoryBytes < MemoryBudget.MINIMUM_BYTES) {
      throw new UsageException(
          "--memory must be at least " + ByteSizes.format(MemoryBudget.MINIMUM_BYTES) + " (got "
              + ByteSizes.format(memoryBytes) + ")");
    }
  }

  public CompactionOptions(OptionalLong targetFileSize, double deletedRowRatio) {
    this(
        targetFileSize,
        deletedRowRatio,
        List.of(),
        PartitionFilter.ALL,
        Runner.AUTO,
        MemoryBudget.defaultBytes(),
        Path.of(System.getProperty("java.io.tmpdir")),
        java.util.Optional.empty(),
        Verification.CONTENT);
  }

  /**
   * What Delta compaction reads of an operation record: the strategy (binpack or zorder with its columns),
   * {@code target-file-size-bytes}, {@code delete-ratio-threshold} and {@code min-partition-idle}; the other
   * (Iceberg rewrite) options and the step's selection have no Delta meaning here and are not read, so one
   * {@code defaults:} section can serve both formats.
   */
  public static CompactionOptions of(Compact op) {
    return of(CompactionSettings.of(op), null);
  }

  private static final java.util.Set<String> APPLICABLE = java.util.Set.of(
      "--target-file-size",
      "--delete-ratio-threshold",
      "--strategy",
      "--columns",
      "--where",
      "--runner",
      "--memory",
      "--min-partition-idle",
      "--verify");

  /**
   * What {@code plan} and {@code compact} were given, for the Delta table whose {@code latest} snapshot (read once
   * the flags are checked) gives the schema and partition columns {@code --where} is read against: bin-pack or
   * z-order per partition; a flag that has no Delta meaning is refused. Without {@code latest} (a step), the
   * selection is not read.
   */
  public static CompactionOptions of(
      CompactionSettings s, java.util.function.Supplier<io.delta.kernel.Snapshot> latest) {
    for (String flag : s.given()) {
      if (!APPLICABLE.contains(flag)) {
        throw new UsageException(
            flag + " does not apply to Delta tables (Delta compaction bin-packs or z-orders each "
                + "partition; it takes --target-file-size, --delete-ratio-threshold, --strategy binpack|zorder, --columns, --where, --runner, --memory, --verify, --min-partition-idle; each bin is its own commit)");
      }
    }
    String strategy = s.strategyName();
    if (!strategy.equals("binpack") && !strategy.equals("zorder")) {
      throw new UsageException(s.origin().strategySetting() + " " + s.layout().strategy()
          + " does not apply to Delta tables (binpack or "
          + "zorder; Delta tables have no declared sort order)");
    }
    if (strategy.equals("zorder") == s.layout().columns().isEmpty()) {
      throw new UsageException(
          strategy.equals("zorder")
              ? "--strategy zorder needs --columns a,b"
              : "--columns needs --strategy zorder");
    }
    PartitionFilter where = PartitionFilter.ALL;
    if (latest != null) {
      io.delta.kernel.Snapshot snapshot = latest.get();
      where = DeltaWhere.parse(
          s.selection().where(), snapshot.getSchema(), snapshot.getPartitionColumnNames());
    }
    RewriteOptions read = s.rewriteOptions();
    CompactionOptions options = new CompactionOptions(
            read.targetFileSize(), read.deleteRatioThreshold(DEFAULT_DELETED_ROW_RATIO))
        .zOrder(dev.resurfacer.names.Identifiers.topLevelNames(
            s.layout().columns(), s.origin().columnsSetting()))
        .where(where)
        // Delta's generic runner is Kernel's own reader and writer
        .runner(
            switch (s.runnerChoice("kernel")) {
              case AUTO -> Runner.AUTO;
              case DUCKDB -> Runner.DUCKDB;
              case GENERIC -> Runner.KERNEL;
            });
    if (s.running().memory() != null) {
      options = options.memory(s.memoryBytes().getAsLong());
    }
    options = options.verification(
        switch (s.verifyChoice()) {
          case CONTENT -> Verification.CONTENT;
          case COUNT -> Verification.COUNT;
        });
    java.util.Optional<java.time.Duration> idle = read.minPartitionIdle();
    return idle.isPresent() ? options.minPartitionIdle(idle.get()) : options;
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(OptionalLong.empty(), DEFAULT_DELETED_ROW_RATIO);
  }

  public CompactionOptions zOrder(List<String> columns) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        columns,
        where,
        runner,
        memoryBytes,
        scratchDir,
        minPartitionIdle,
        verification);
  }

  public CompactionOptions where(PartitionFilter filter) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        filter,
        runner,
        memoryBytes,
        scratchDir,
        minPartitionIdle,
        verification);
  }

  public CompactionOptions runner(Runner newRunner) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        where,
        newRunner,
        memoryBytes,
        scratchDir,
        minPartitionIdle,
        verification);
  }

  public CompactionOptions memory(long bytes) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        where,
        runner,
        bytes,
        scratchDir,
        minPartitionIdle,
        verification);
  }

  public CompactionOptions scratchDir(Path dir) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        where,
        runner,
        memoryBytes,
        dir,
        minPartitionIdle,
        verification);
  }

  public CompactionOptions minPartitionIdle(java.time.Duration idle) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        where,
        runner,
        memoryBytes,
        scratchDir,
        java.util.Optional.of(idle),
        verification);
  }

  public CompactionOptions verification(Verification newVerification) {
    return new CompactionOptions(
        targetFileSize,
        deletedRowRatio,
        zOrderColumns,
        where,
        runner,
        memoryBytes,
        scratchDir,
        minPartitionIdle,
        newVerification);
  }

  public boolean zOrdered() {
    return !zOrderColumns.isEmpty();
  }
}
