package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.upgrade.RowLineage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.FileRewritePlan;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Chooses the groups a compaction rewrites and the runner for each. Grouping is Iceberg core's
 * ({@link BinPackRewriteFilePlanner}); on top of it go the partition and idle-partition selection,
 * the condensed specs left alone, and why the files no group takes were skipped.
 */
final class GroupPlanner {
  private GroupPlanner() {}

  static PlannedCompaction plan(Table table, CompactionOptions options) {
    // the commit options are checked by plan too: a bad value is a usage error before anything is
    // read
    options.shared().groupsPerCommit(1);
    options.shared().commitEvery();
    table.refresh();
    long target = targetFileSize(table, options);
    List<String> warnings = new ArrayList<>();
    ResolvedOrdering ordering = ResolvedOrdering.resolve(table, options.ordering(), warnings::add);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new PlannedCompaction(
          table,
          options,
          new CompactionPlan(
              table.name(),
              null,
              0,
              0,
              target,
              List.of(),
              0,
              "the table has no snapshot",
              ResolvedOrdering.describe(ordering),
              warnings),
          List.of(),
          -1,
          target,
          ordering,
          Map.of());
    }
    BinPackRewriteFilePlanner planner =
        new BinPackRewriteFilePlanner(table, options.filter(), current.snapshotId(), true);
    FileRewritePlan<RewriteDataFiles.FileGroupInfo, FileScanTask, DataFile, RewriteFileGroup> plan;
    try {
      planner.init(options.plannerOptions(planner.validOptions()));
      plan = planner.plan();
    } catch (ValidationException | IllegalArgumentException e) {
      throw new UsageException("cannot plan compaction of " + table.name() + ": " + e.getMessage());
    }
    List<RewriteFileGroup> groups = new ArrayList<>();
    IdlePartitions idle = options
        .shared()
        .minPartitionIdle()
        .map(d -> IdlePartitions.of(table, current, d, System.currentTimeMillis()))
        .orElse(null);
    Set<Integer> condensed = options.rewriteOptions().containsKey(RewriteDataFiles.OUTPUT_SPEC_ID)
        ? Set.of()
        : Condensing.condensedSpecIds(table);
    try (CloseableIterable<RewriteFileGroup> all = plan.groups()) {
      for (RewriteFileGroup g : all) {
        RewriteFileGroup kept = withoutCondensed(g, condensed, target);
        if (kept != null
            && inPartition(partitionPath(table, kept), options.partition())
            && (idle == null
                || kept.fileScanTasks().stream().noneMatch(t -> idle.busy(table, t.file())))) {
          groups.add(kept);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long liveFiles = 0;
    long liveBytes = 0;
    Set<String> inGroups = new HashSet<>();
    groups.forEach(g -> g.fileScanTasks().forEach(t -> inGroups.add(t.file().location())));
    SkipReasons skipped =
        new SkipReasons(table, options, current.snapshotId(), target, condensed, idle);
    try (CloseableIterable<FileScanTask> tasks = table
        .newScan()
        .useSnapshot(current.snapshotId())
        .filter(options.filter())
        .planFiles()) {
      for (FileScanTask t : tasks) {
        liveFiles++;
        liveBytes += t.file().fileSizeInBytes();
        if (!inGroups.contains(t.file().location())) {
          skipped.add(t, filePartitionPath(table, t.file()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!groups.isEmpty() && RowLineage.unassigned(table)) {
      warnings.add(RowLineage.PLAN_NOTE);
    }
    List<CompactionPlan.Group> planned = new ArrayList<>();
    Map<RewriteFileGroup, Optional<String>> whyNotDuckDb = new java.util.IdentityHashMap<>();
    for (int i = 0; i < groups.size(); i++) {
      RewriteFileGroup g = groups.get(i);
      // the generic runner needs no footer inspection: skip reading every file's footer for it
      Optional<String> whyNotDuck = options.runner() == CompactionOptions.Runner.GENERIC
          ? Optional.of("--runner generic")
          : DuckDbRewriter.unsupported(table, g, ordering);
      whyNotDuckDb.put(g, whyNotDuck);
      GroupRewriter rewriter = rewriterFor(table, options, whyNotDuck);
      String reason = rewriter instanceof DuckDbRewriter
          ? "default"
          : options.runner() == CompactionOptions.Runner.GENERIC
              ? "--runner generic"
              : whyNotDuck.orElse("");
      planned.add(new CompactionPlan.Group(
          i,
          partitionPath(table, g),
          g.fileScanTasks().get(0).file().specId(),
          g.outputSpecId(),
          g.inputFileNum(),
          g.inputFilesSizeInBytes(),
          deleteFiles(g).size(),
          g.expectedOutputFiles(),
          rewriter.name(),
          reason));
    }
    long selected = planned.stream().mapToLong(CompactionPlan.Group::files).sum();
    String because = liveFiles == selected ? "" : skipped.because();
    CompactionPlan readout = new CompactionPlan(
        table.name(),
        current.snapshotId(),
        liveFiles,
        liveBytes,
        target,
        planned,
        liveFiles - selected,
        because,
        ResolvedOrdering.describe(ordering),
        warnings);
    return new PlannedCompaction(
        table, options, readout, groups, current.snapshotId(), target, ordering, whyNotDuckDb);
  }

  static GroupRewriter rewriterFor(
      Table table, CompactionOptions options, Optional<String> whyNotDuckDb) {
    return switch (options.runner()) {
      case GENERIC -> new GenericRewriter();
      case DUCKDB -> {
        if (whyNotDuckDb.isPresent()) {
          throw new UsageException(
              "--runner duckdb cannot rewrite " + table.name() + ": " + whyNotDuckDb.get());
        }
        yield new DuckDbRewriter();
      }
      case AUTO -> whyNotDuckDb.isPresent() ? new GenericRewriter() : new DuckDbRewriter();
    };
  }

  static long targetFileSize(Table table, CompactionOptions options) {
    String option = options.rewriteOptions().get(RewriteDataFiles.TARGET_FILE_SIZE_BYTES);
    if (option != null) {
      try {
        long v = Long.parseLong(option);
        if (v <= 0) {
          throw new NumberFormatException();
        }
        return v;
      } catch (NumberFormatException e) {
        throw new UsageException(
            "target-file-size-bytes must be a positive number of bytes (got '" + option + "')");
      }
    }
    return PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * Whether a group's partition path is {@code wanted} or lies under it: {@code cat=a} selects
   * {@code cat=a} and {@code cat=a/day=1}, never {@code cat=ab}.
   */
  static boolean inPartition(String path, String wanted) {
    return wanted == null
        || path.equals(wanted)
        || path.startsWith(wanted.endsWith("/") ? wanted : wanted + "/");
  }

  /**
   * {@code group} without the files of a condensed spec (the default with its time field coarsened,
   * as {@code condense} writes aged partitions), or null when nothing is left. Core's planner takes
   * every file outside the output spec, to move it into the default spec: for condensed files that
   * would split them back into the fine partitions condense just left, and the next condense would
   * gather them again.
   */
  private static RewriteFileGroup withoutCondensed(
      RewriteFileGroup group, Set<Integer> condensed, long target) {
    if (condensed.isEmpty()
        || group.fileScanTasks().stream()
            .noneMatch(t -> condensed.contains(t.file().specId()))) {
      return group;
    }
    List<FileScanTask> kept = group.fileScanTasks().stream()
        .filter(t -> !condensed.contains(t.file().specId()))
        .toList();
    if (kept.isEmpty()) {
      return null;
    }
    long bytes = kept.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    return new RewriteFileGroup(
        group.info(),
        kept,
        group.outputSpecId(),
        group.maxOutputFileSize(),
        group.inputSplitSize(),
        (int) Math.max(1, Math.ceil(bytes / (double) target)));
  }

  /** A file's partition as {@link #partitionPath} names a group's, so {@code --partition} selects both alike. */
  private static String filePartitionPath(Table table, DataFile file) {
    if (file.specId() != table.spec().specId()) {
      return "(files of older specs)";
    }
    PartitionSpec spec = table.specs().get(file.specId());
    return spec.isUnpartitioned() ? "(unpartitioned)" : spec.partitionToPath(file.partition());
  }

  static String partitionPath(Table table, RewriteFileGroup group) {
    if (group.fileScanTasks().stream()
        .anyMatch(t -> t.file().specId() != table.spec().specId())) {
      return "(files of older specs)";
    }
    // the file's own partition: the group's info holds it in the current spec's type
    DataFile first = group.fileScanTasks().get(0).file();
    PartitionSpec spec = table.specs().get(first.specId());
    return spec.isUnpartitioned() ? "(unpartitioned)" : spec.partitionToPath(first.partition());
  }

  static Set<DeleteFile> deleteFiles(RewriteFileGroup group) {
    Map<String, DeleteFile> byLocation = new java.util.LinkedHashMap<>();
    group
        .fileScanTasks()
        .forEach(t -> t.deletes().forEach(d -> byLocation.putIfAbsent(d.location(), d)));
    return new HashSet<>(byLocation.values());
  }
}
