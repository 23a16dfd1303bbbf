package dev.resurfacer.delta.compact;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.units.ByteSizes;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Bin-packs each partition's small files (below 75% of the target) into bins of at most the target
 * size, like Delta's OPTIMIZE: a bin of one file is dropped unless that file's deletion vector
 * deletes more than the ratio threshold, when rewriting it purges the deleted rows.
 */
public final class CompactionPlanner {
  /** Table features whose data files compaction can rewrite without changing what they mean. */
  static final Set<String> SUPPORTED_FEATURES = Set.of(
      "appendOnly",
      "invariants",
      "checkConstraints",
      "changeDataFeed",
      "generatedColumns",
      "deletionVectors",
      "timestampNtz",
      "domainMetadata",
      "v2Checkpoint",
      "inCommitTimestamp",
      "vacuumProtocolCheck",
      "clustering",
      "columnMapping",
      "typeWidening",
      "typeWidening-preview",
      "icebergCompatV2");
  /** The table property naming the formats whose metadata delta-spark writes beside the Delta log after each commit (UniForm). */
  static final String UNIVERSAL_FORMATS = "delta.universalFormat.enabledFormats";

  private CompactionPlanner() {}

  public static CompactionPlan plan(
      DeltaTable table, Snapshot snapshot, CompactionOptions options) {
    refuseUnsupportedFeatures(snapshot);
    if (options.zOrdered()) {
      ZOrder.check(snapshot, options.zOrderColumns());
    }
    long target = options
        .targetFileSize()
        .orElse(CompactionDefaults.targetFileSize(snapshot.getTableProperties()));
    Map<Map<String, String>, List<LiveFile>> byPartition = new LinkedHashMap<>();
    long outside = 0;
    long busy = 0;
    Set<Map<String, String>> busyPartitions = new java.util.HashSet<>();
    IdlePartitions idle = options
        .minPartitionIdle()
        .map(d -> IdlePartitions.of(table, snapshot, d, System.currentTimeMillis()))
        .orElse(null);
    for (LiveFile f : LiveFiles.of(table, snapshot)) {
      if (!options.where().matches().test(f.partitionValues())) {
        outside++;
        continue;
      }
      if (idle != null && idle.busy(f.partitionValues())) {
        busy++;
        busyPartitions.add(f.partitionValues());
        continue;
      }
      byPartition.computeIfAbsent(f.partitionValues(), k -> new ArrayList<>()).add(f);
    }
    List<CompactionPlan.Bin> bins = new ArrayList<>();
    long singles = 0, large = 0;
    if (options.zOrdered()) {
      // as Delta's OPTIMIZE ZORDER BY: each partition is one bin of all its files, sorted as a
      // whole
      for (var e : byPartition.entrySet()) {
        List<LiveFile> files = new ArrayList<>(e.getValue());
        files.sort(Comparator.comparing(LiveFile::logPath));
        if (files.size() == 1 && files.get(0).deletionVector().isEmpty()) {
          singles++;
        } else {
          bins.add(new CompactionPlan.Bin(e.getKey(), files));
        }
      }
    }
    for (var e : options.zOrdered()
        ? Map.<Map<String, String>, List<LiveFile>>of().entrySet()
        : byPartition.entrySet()) {
      List<LiveFile> candidates = new ArrayList<>();
      for (LiveFile f : e.getValue()) {
        if (f.size() < target * 3 / 4 || purge(f, options)) {
          candidates.add(f);
        } else {
          large++;
        }
      }
      candidates.sort(Comparator.comparingLong(LiveFile::size).thenComparing(LiveFile::logPath));
      List<LiveFile> current = new ArrayList<>();
      long bytes = 0;
      List<List<LiveFile>> packed = new ArrayList<>();
      for (LiveFile f : candidates) {
        if (!current.isEmpty() && bytes + f.size() > target) {
          packed.add(current);
          current = new ArrayList<>();
          bytes = 0;
        }
        current.add(f);
        bytes += f.size();
      }
      if (!current.isEmpty()) {
        packed.add(current);
      }
      for (List<LiveFile> bin : packed) {
        if (bin.size() == 1 && !purge(bin.get(0), options)) {
          singles++;
        } else {
          bins.add(new CompactionPlan.Bin(e.getKey(), bin));
        }
      }
    }
    List<String> skipped = new ArrayList<>();
    if (outside > 0) {
      skipped.add(
          outside + " files in partitions outside --where " + options.where().text());
    }
    if (busy > 0) {
      skipped.add(busy + " files in " + busyPartitions.size()
          + " partition(s) a writer changed within " + CompactionOptions.MIN_PARTITION_IDLE + " ("
          + dev.resurfacer.units.Durations.format(idle.idle()) + "), left for a later run");
    }
    if (large > 0) {
      skipped.add(large + " files at or above 75% of the target size");
    }
    if (singles > 0) {
      skipped.add(
          singles + " files alone in their bin (nothing to merge with, no deleted rows to purge)");
    }
    Optional<String> unreachable = DuckDbBinRunner.unreachable(table.storage());
    // footers are read only when DuckDB would otherwise run
    Optional<String> inexact =
        options.runner() == CompactionOptions.Runner.KERNEL || unreachable.isPresent()
            ? Optional.empty()
            : DuckDbBinRunner.unsupported(
                DataColumns.of(snapshot), KernelInternals.readsByFieldId(snapshot), bins);
    String runner;
    String reason;
    switch (options.runner()) {
      case KERNEL -> {
        runner = "kernel";
        reason = "asked for (--runner generic): Kernel's reader and writer in the heap"
            + (options.zOrdered()
                ? "; a z-order bin above " + "an eighth of the heap is refused"
                : "");
      }
      case DUCKDB -> {
        if (unreachable.isPresent()) {
          throw new SafetyRefusal("--runner duckdb cannot rewrite " + table.name() + ": "
              + unreachable.get() + " (--runner auto uses Kernel's runner for it)");
        }
        if (inexact.isPresent()) {
          throw new SafetyRefusal("--runner duckdb cannot rewrite " + table.name() + " exactly: "
              + inexact.get() + " (--runner auto uses Kernel's runner for it)");
        }
        runner = "duckdb";
        reason = "memory limit " + ByteSizes.format(options.memoryBytes()) + ", spilling to "
            + options.scratchDir();
      }
      default -> {
        runner = unreachable.isPresent() || inexact.isPresent() ? "kernel" : "duckdb";
        reason = unreachable
            .map(why -> why
                + "; Kernel's runner reads and writes it through the table's storage, in the heap"
                + (options.zOrdered() ? ", and refuses a z-order bin above an eighth of it" : ""))
            .or(() -> inexact.map(why -> "DuckDB cannot be exact here: " + why
                + "; Kernel's runner works in the heap"
                + (options.zOrdered() ? " and refuses a z-order bin above an eighth of it" : "")))
            .orElse("memory limit " + ByteSizes.format(options.memoryBytes()) + ", spilling to "
                + options.scratchDir());
      }
    }
    return new CompactionPlan(
        table.name(),
        snapshot.getVersion(),
        target,
        options.zOrderColumns(),
        runner,
        reason,
        bins,
        skipped);
  }

  static boolean purge(LiveFile f, CompactionOptions options) {
    return f.deletionVector().isPresent()
        && f.numRecords().isPresent()
        && f.numRecords().getAsLong() > 0
        && (double) f.deletedRows() / f.numRecords().getAsLong() > options.deletedRowRatio();
  }

  static void refuseUnsupportedFeatures(Snapshot snapshot) {
    var p = KernelInternals.protocol(snapshot);
    Set<String> unsupported = new TreeSet<>(p.writerFeatures());
    unsupported.addAll(p.readerFeatures());
    unsupported.removeAll(SUPPORTED_FEATURES);
    if (p.minWriterVersion() == 6) {
      // legacy writer version 6 implies identity columns without naming them (5 implies column
      // mapping, supported)
      unsupported.add("legacy writer version 6 (identityColumns)");
    }
    if (!unsupported.isEmpty()) {
      throw new SafetyRefusal(
          "compaction does not rewrite tables with " + String.join(", ", unsupported)
              + " on this build (row tracking, variant and the rest need their own handling)");
    }
  }

  /**
   * The plan of a compaction our runners write and Kernel commits, refusing here whatever {@link
   * DeltaCompactor#execute} would refuse or fail every bin on: UniForm, a per-bin transaction
   * Kernel does not build (a table feature's rules it does not write by), a partition value Kernel
   * cannot type. (delta-spark's OPTIMIZE, {@code --engine spark}, plans with {@link #plan} alone.)
   */
  static CompactionPlan planWrittenHere(
      DeltaTable table, Snapshot snapshot, CompactionOptions options) {
    String formats =
        snapshot.getTableProperties().getOrDefault(UNIVERSAL_FORMATS, "").strip();
    if (!formats.isEmpty()) {
      throw new SafetyRefusal("compaction does not rewrite UniForm tables (" + UNIVERSAL_FORMATS
          + " = " + formats + ") here: "
          + "delta-spark writes their " + formats
          + " metadata after each of its own commits, an OPTIMIZE committed here would leave "
          + "that metadata naming the files it removes, and a vacuum would then delete them under those readers (delta-spark's OPTIMIZE, "
          + "--engine spark, writes it)");
    }
    CompactionPlan plan = plan(table, snapshot, options);
    try {
      snapshot
          .buildUpdateTableTransaction(DeltaCompactor.ENGINE_INFO, Operation.MANUAL_UPDATE)
          .build(table.engine());
    } catch (RuntimeException e) {
      throw new SafetyRefusal(
          "Delta Kernel does not write " + table.name() + ": " + Failures.oneLine(e));
    }
    for (CompactionPlan.Bin bin : plan.bins()) {
      PartitionLiterals.of(
          snapshot.getSchema(), snapshot.getPartitionColumnNames(), bin.partition());
    }
    return plan;
  }
}
