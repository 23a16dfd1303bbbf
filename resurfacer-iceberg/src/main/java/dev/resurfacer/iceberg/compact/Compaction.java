package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.upgrade.RowLineage;
import dev.resurfacer.progress.Progress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
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
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Bin-pack compaction. Planning is Iceberg core's ({@link BinPackRewriteFilePlanner}); we supply the
 * runner that turns a group into new files, verify each group's rows before it may commit, and
 * commit {@code replace} snapshots at the starting sequence number that carry deletes a writer
 * committed meanwhile onto the new files ({@link CarryingCommits}).
 *
 * <pre>
 * CompactionPlan plan = Compaction.plan(table, CompactionOptions.defaults());      // changes nothing
 * CompactionResult done = Compaction.execute(table, CompactionOptions.defaults()); // commits
 * </pre>
 */
public final class Compaction {
  static final String SUMMARY_PROPERTY = "resurfacer.operation";

  private Compaction() {}

  /** {@link #plan} as {@code compact} without {@code --yes} shows it: the plan, and that nothing changed. */
  public static dev.resurfacer.report.Readout preview(Table table, CompactionOptions options) {
    return new CompactionText.Preview(plan(table, options));
  }

  public static CompactionPlan plan(Table table, CompactionOptions options) {
    return planGroups(table, options).plan();
  }

  public static CompactionResult execute(Table table, CompactionOptions options) {
    return execute(table, options, message -> { }, Progress.NONE, null);
  }

  public static CompactionResult execute(Table table, CompactionOptions options, Consumer<String> progress) {
    return execute(table, options, progress, Progress.NONE, null);
  }

  /**
   * @param bar told of each group as it finishes: its files and bytes, out of the plan's
   * @param progress one line per finished group, for a log
   */
  public static CompactionResult execute(Table table, CompactionOptions options, Progress bar, Consumer<String> progress) {
    return execute(table, options, progress, bar, null);
  }

  /** @param whyNotDuckDb per group, why DuckDB cannot rewrite it exactly (empty when it can) */
  record Planned(CompactionPlan plan, List<RewriteFileGroup> groups, long startingSnapshotId, long targetFileSize,
      ResolvedOrdering ordering, Map<RewriteFileGroup, Optional<String>> whyNotDuckDb) {}

  static Planned planGroups(Table table, CompactionOptions options) {
    // the commit options are checked by plan too: a bad value is a usage error before anything is read
    options.groupsPerCommit(1);
    options.commitEvery();
    table.refresh();
    long target = targetFileSize(table, options);
    List<String> warnings = new ArrayList<>();
    ResolvedOrdering ordering = ResolvedOrdering.resolve(table, options.ordering(), warnings::add);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new Planned(new CompactionPlan(table.name(), null, 0, 0, target, List.of(), 0, "the table has no snapshot",
          ResolvedOrdering.describe(ordering), warnings), List.of(), -1, target, ordering, Map.of());
    }
    BinPackRewriteFilePlanner planner = new BinPackRewriteFilePlanner(table, options.filter(), current.snapshotId(), true);
    FileRewritePlan<RewriteDataFiles.FileGroupInfo, FileScanTask, DataFile, RewriteFileGroup> plan;
    try {
      planner.init(options.plannerOptions(planner.validOptions()));
      plan = planner.plan();
    } catch (ValidationException | IllegalArgumentException e) {
      throw new UsageException("cannot plan compaction of " + table.name() + ": " + e.getMessage());
    }
    List<RewriteFileGroup> groups = new ArrayList<>();
    IdlePartitions idle = options.minPartitionIdle().map(d -> IdlePartitions.of(table, current, d, System.currentTimeMillis()))
        .orElse(null);
    Set<Integer> condensed = options.rewriteOptions().containsKey(RewriteDataFiles.OUTPUT_SPEC_ID) ? Set.of()
        : Condensing.condensedSpecIds(table);
    try (CloseableIterable<RewriteFileGroup> all = plan.groups()) {
      for (RewriteFileGroup g : all) {
        RewriteFileGroup kept = withoutCondensed(g, condensed, target);
        if (kept != null && inPartition(partitionPath(table, kept), options.partition())
            && (idle == null || kept.fileScanTasks().stream().noneMatch(t -> idle.busy(table, t.file())))) {
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
    SkipReasons skipped = new SkipReasons(table, options, current.snapshotId(), target, condensed, idle);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(current.snapshotId()).filter(options.filter()).planFiles()) {
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
          ? Optional.of("--runner generic") : DuckDbRewriter.unsupported(table, g, ordering);
      whyNotDuckDb.put(g, whyNotDuck);
      GroupRewriter rewriter = rewriterFor(table, options, whyNotDuck);
      String reason = rewriter instanceof DuckDbRewriter ? "default"
          : options.runner() == CompactionOptions.Runner.GENERIC ? "--runner generic" : whyNotDuck.orElse("");
      planned.add(new CompactionPlan.Group(i, partitionPath(table, g), g.fileScanTasks().get(0).file().specId(), g.outputSpecId(),
          g.inputFileNum(), g.inputFilesSizeInBytes(), deleteFiles(g).size(), g.expectedOutputFiles(), rewriter.name(), reason));
    }
    long selected = planned.stream().mapToLong(CompactionPlan.Group::files).sum();
    String because = liveFiles == selected ? "" : skipped.because();
    CompactionPlan result = new CompactionPlan(table.name(), current.snapshotId(), liveFiles, liveBytes, target, planned,
        liveFiles - selected, because, ResolvedOrdering.describe(ordering), warnings);
    return new Planned(result, groups, current.snapshotId(), target, ordering, whyNotDuckDb);
  }

  /** The plan, made after the table's rows got their row ids when it has some to rewrite: see {@link RowLineage}. */
  private static Planned assigningRowIds(Table table, CompactionOptions options, Consumer<String> progress) {
    Planned planned = planGroups(table, options);
    if (!planned.groups().isEmpty() && RowLineage.assign(table, SUMMARY_PROPERTY) != null) {
      progress.accept("row ids assigned to the rows written before the upgrade to v3 (a snapshot that changes no file)");
      return planGroups(table, options);
    }
    return planned;
  }

  /** @param override picks each group's runner instead of the plan (tests inject faults); null to follow the plan */
  static CompactionResult execute(Table table, CompactionOptions options, Consumer<String> progress,
      RewriterChoice override) {
    return execute(table, options, progress, Progress.NONE, override);
  }

  private static CompactionResult execute(Table table, CompactionOptions options, Consumer<String> progress, Progress bar,
      RewriterChoice override) {
    long started = System.nanoTime();
    long smallGroupBytes = options.smallGroupBytes(); // a bad value is a usage error before anything is read or written
    Planned planned = assigningRowIds(table, options, progress);
    List<RewriteFileGroup> groups = planned.groups();
    String verification = options.verification().label();
    if (groups.isEmpty()) {
      return new CompactionResult(table.name(), List.of(), 0, 0, 0, 0, 0, 0, List.of(), 0, millisSince(started), PeakMemory.rssBytes(),
          verification);
    }
    RewriterChoice choice = override != null ? override
        : (t, g, o, ordering) -> rewriterFor(t, o, planned.whyNotDuckDb().get(g));
    int concurrency = Math.min(options.maxConcurrentGroups(), groups.size());
    int cores = Runtime.getRuntime().availableProcessors();
    Path scratch;
    try {
      Files.createDirectories(options.scratchDir());
      scratch = Files.createTempDirectory(options.scratchDir(), "resurfacer-compact-");
    } catch (IOException e) {
      throw new UsageException("cannot create scratch directory under " + options.scratchDir());
    }
    // one verification read per group in flight, on at most the machine's cores; each holds one
    // Parquet row group of its file (a few MB), far below what --memory gives DuckDB
    ExecutorService verifying = Executors.newFixedThreadPool(Math.max(1, Math.min(concurrency, cores)), r -> {
      Thread t = new Thread(r, "compact-verify");
      t.setDaemon(true);
      return t;
    });
    GroupRewriter.Settings settings = new GroupRewriter.Settings(
        options.memoryBytes() / concurrency, Math.max(1, cores / concurrency), scratch, planned.targetFileSize(), planned.ordering(),
        smallGroupBytes, verifying);

    // commits carry deletes committed meanwhile on the inputs onto the new files: see CarryingCommits
    CarryingCommits commits = new CarryingCommits(table, planned.startingSnapshotId(), options.useStartingSequenceNumber(),
        options.filter(), options.groupsPerCommit(groups.size()), options.commitEvery().orElse(null), Map.of(SUMMARY_PROPERTY, "compact"),
        java.util.function.UnaryOperator.identity());

    List<CompactionResult.Group> results = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    Progress.Task task = bar.start("compact " + table.name() + " (" + groups.size() + (groups.size() == 1 ? " group)" : " groups)"), "files",
        planned.plan().filesToRewrite(), planned.plan().bytesToRewrite());
    try {
      List<Future<CompactionResult.Group>> futures = new ArrayList<>();
      for (int i = 0; i < groups.size(); i++) {
        final int index = i;
        RewriteFileGroup group = groups.get(i);
        futures.add(pool.submit(() -> {
          GroupRewriter rewriter = choice.choose(table, group, options, planned.ordering());
          CompactionResult.Group r = rewriteGroup(table, group, index, rewriter, settings, options);
          if (r.status() != Status.COMMITTED && r.runner().equals("duckdb") && options.runner() == CompactionOptions.Runner.AUTO) {
            // auto promises a faithful rewrite, not a DuckDB one: whatever DuckDB failed on, the
            // generic runner (Iceberg's own reader and writer) gets the group next
            CompactionResult.Group retry = rewriteGroup(table, group, index, new GenericRewriter(), settings, options);
            String duckdb = "duckdb " + (r.status() == Status.VERIFICATION_FAILED ? "failed verification" : "failed")
                + " (" + r.message() + ")";
            r = retry.withMessage(retry.status() == Status.COMMITTED ? duckdb + ", rewritten by the generic runner"
                : duckdb + "; the generic runner then failed too: " + retry.message());
          }
          if (r.status() == Status.COMMITTED) {
            commits.offer(group);
          }
          progress.accept(String.format(java.util.Locale.ROOT, "group %d/%d %s: %s, %d files -> %d, %s/s, %s",
              index + 1, groups.size(), r.partition(), r.status().name().toLowerCase(java.util.Locale.ROOT),
              r.inputFiles(), r.outputFiles(), dev.resurfacer.units.ByteSizes.format(r.inputBytes() * 1000 / Math.max(1, r.millis())),
              r.message() == null ? r.runner() : r.message()));
          task.note("group " + (index + 1) + "/" + groups.size() + " " + r.partition());
          task.advance(group.inputFileNum(), group.inputFilesSizeInBytes());
          return r;
        }));
      }
      for (Future<CompactionResult.Group> f : futures) {
        try {
          results.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    } finally {
      task.close();
      pool.shutdownNow();
      verifying.shutdownNow();
      DuckDbRewriter.deleteRecursively(scratch);
    }

    CarryingCommits.Outcome outcome = commits.finish();
    Set<RewriteFileGroup> committed = outcome.committed();
    List<CompactionResult.Group> finals = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      CompactionResult.Group r = results.get(i);
      if (r.status() == Status.COMMITTED && !committed.contains(groups.get(i))) {
        String why = outcome.failures().getOrDefault(groups.get(i), "not committed; new files removed");
        r = new CompactionResult.Group(r.index(), r.partition(), r.runner(), Status.NOT_COMMITTED, r.inputFiles(), r.inputBytes(),
            r.outputFiles(), r.outputBytes(), r.deleteFiles(), r.rows(), r.millis(), why);
      } else if (outcome.notes().containsKey(groups.get(i))) {
        r = r.withMessage(outcome.notes().get(groups.get(i)));
      }
      finals.add(r);
    }
    finals.sort(Comparator.comparingInt(CompactionResult.Group::index));

    table.refresh();
    List<Long> snapshots = new ArrayList<>();
    if (!committed.isEmpty()) {
      for (Snapshot s : SnapshotUtil.ancestorsBetween(table, table.currentSnapshot().snapshotId(), planned.startingSnapshotId())) {
        if ("compact".equals(s.summary().get(SUMMARY_PROPERTY))) {
          snapshots.add(0, s.snapshotId());
        }
      }
    }
    Set<String> applied = new HashSet<>();
    long rewrittenFiles = 0, rewrittenBytes = 0, addedFiles = 0, addedBytes = 0, rows = 0;
    for (RewriteFileGroup g : committed) {
      rewrittenFiles += g.rewrittenFiles().size();
      rewrittenBytes += g.inputFilesSizeInBytes();
      addedFiles += g.addedFiles().size();
      addedBytes += g.addedFiles().stream().mapToLong(DataFile::fileSizeInBytes).sum();
      rows += g.addedFiles().stream().mapToLong(DataFile::recordCount).sum();
      deleteFiles(g).forEach(d -> applied.add(d.location()));
    }
    long dangling = committed.isEmpty() ? 0 : countDangling(table, applied);
    return new CompactionResult(table.name(), finals, rewrittenFiles, rewrittenBytes, addedFiles, addedBytes, applied.size(), rows,
        snapshots, dangling, millisSince(started), PeakMemory.rssBytes(), verification);
  }

  static CompactionResult.Group rewriteGroup(Table table, RewriteFileGroup group, int index, GroupRewriter rewriter,
      GroupRewriter.Settings settings, CompactionOptions options) {
    long started = System.nanoTime();
    String partition = partitionPath(table, group);
    int deletes = deleteFiles(group).size();
    List<DataFile> outputs = List.of();
    // the input is digested while the runner writes: verification overlaps the rewrite
    java.util.concurrent.CompletableFuture<Digested> input = options.verification() == CompactionOptions.Verification.CONTENT
        ? java.util.concurrent.CompletableFuture.supplyAsync(() -> Digested.input(table, group.fileScanTasks()), settings.verifying())
        : null;
    try {
      outputs = rewriter.rewrite(table, group, settings);
      long written = outputs.stream().mapToLong(DataFile::recordCount).sum();
      String mismatch = input != null
          ? contentMismatch(table, group, outputs, input)
          : countMismatch(table, group, written);
      if (mismatch != null) {
        deleteAll(table, outputs);
        return new CompactionResult.Group(index, partition, rewriter.name(), Status.VERIFICATION_FAILED, group.inputFileNum(),
            group.inputFilesSizeInBytes(), 0, 0, deletes, 0, millisSince(started), mismatch + "; new files removed, nothing committed");
      }
      group.setOutputFiles(new HashSet<>(outputs));
      return new CompactionResult.Group(index, partition, rewriter.name(), Status.COMMITTED, group.inputFileNum(),
          group.inputFilesSizeInBytes(), outputs.size(), outputs.stream().mapToLong(DataFile::fileSizeInBytes).sum(), deletes,
          written, millisSince(started), null);
    } catch (Exception e) {
      if (input != null) {
        input.cancel(true);
      }
      deleteAll(table, outputs);
      String message = failureMessage(e instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : e);
      return new CompactionResult.Group(index, partition, rewriter.name(), Status.FAILED, group.inputFileNum(),
          group.inputFilesSizeInBytes(), 0, 0, deletes, 0, millisSince(started), message);
    }
  }

  private static String countMismatch(Table table, RewriteFileGroup group, long written) {
    long expected = expectedRows(table, group);
    return written == expected ? null : "row count mismatch: " + expected + " live input rows, " + written + " written";
  }

  /**
   * Both sides are read independently of the runner that wrote the output, from parquet-java's pages
   * decoded whole ({@link ColumnarDigest}) where they read the group exactly, else by Iceberg's generic
   * reader ({@link Checksum}): a runner's misreading of its input (names, encodings, nested ids,
   * signed zeros) cannot agree with itself here. Both sides of a group are digested by the same
   * reader. Each read streams, so memory stays bounded.
   */
  private static String contentMismatch(Table table, RewriteFileGroup group, List<DataFile> outputs,
      java.util.concurrent.CompletableFuture<Digested> input) {
    Digested in;
    try {
      in = input.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    List<String> locations = outputs.stream().map(DataFile::location).toList();
    Digested out = Digested.output(table, locations, in.columnar());
    if (in.columnar() && !out.columnar()) {
      in = Digested.input(table, group.fileScanTasks(), false);
    }
    return in.digest().differenceFrom(out.digest(), in.names()).map(d -> "content mismatch: " + d).orElse(null);
  }

  /** One side's digest, and whether the columnar reader made it. */
  record Digested(dev.resurfacer.content.RowDigest digest, boolean columnar, List<String> names) {
    static Digested input(Table table, List<FileScanTask> tasks) {
      return input(table, tasks, true);
    }

    static Digested input(Table table, List<FileScanTask> tasks, boolean columnarIfPossible) {
      org.apache.iceberg.Schema schema = LiveRows.rewriteSchema(table);
      List<String> names = schema.columns().stream().map(org.apache.iceberg.types.Types.NestedField::name).toList();
      if (columnarIfPossible && ColumnarDigest.reads(table, schema, tasks)) {
        try {
          return new Digested(ColumnarDigest.ofTasks(table, tasks, schema), true, names);
        } catch (dev.resurfacer.content.PageHashes.Unreadable e) {
          // a file the page decoder cannot read exactly: the generic reader digests the group
        }
      }
      return new Digested(Checksum.ofTasks(table, tasks, schema).digest(), false, names);
    }

    static Digested output(Table table, List<String> locations, boolean columnar) {
      org.apache.iceberg.Schema schema = LiveRows.rewriteSchema(table);
      List<String> names = schema.columns().stream().map(org.apache.iceberg.types.Types.NestedField::name).toList();
      if (columnar) {
        try {
          return new Digested(ColumnarDigest.ofFiles(table, locations, schema), true, names);
        } catch (dev.resurfacer.content.PageHashes.Unreadable e) {
          // as for the input: the generic reader digests both sides
        }
      }
      return new Digested(Checksum.ofFiles(table, locations, schema).digest(), false, names);
    }
  }

  /**
   * One line that says what went wrong. DuckDB's JDBC driver reports a failed streaming query as
   * "Attempting to execute an unsuccessful or closed pending query result" and puts DuckDB's own
   * error on the next line: that line is the one worth showing.
   */
  static String failureMessage(Throwable e) {
    String text = e.getMessage();
    if (text == null) {
      return e.getClass().getSimpleName();
    }
    List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    for (String line : lines) {
      if (!line.contains("Attempting to execute an unsuccessful or closed pending query result")) {
        return line;
      }
    }
    return lines.isEmpty() ? e.getClass().getSimpleName() : lines.get(0);
  }

  /**
   * Whether a group's partition path is {@code wanted} or lies under it: {@code cat=a} selects
   * {@code cat=a} and {@code cat=a/day=1}, never {@code cat=ab}.
   */
  static boolean inPartition(String path, String wanted) {
    return wanted == null || path.equals(wanted) || path.startsWith(wanted.endsWith("/") ? wanted : wanted + "/");
  }

  /**
   * Live input rows, from a source independent of the runner: without delete files they are the
   * record counts the manifests hold (no data read needed); with deletes, Iceberg's own
   * delete-aware reader counts them.
   */
  static long expectedRows(Table table, RewriteFileGroup group) {
    if (group.fileScanTasks().stream().allMatch(t -> t.deletes().isEmpty())) {
      return group.fileScanTasks().stream().mapToLong(t -> t.file().recordCount()).sum();
    }
    return LiveRows.count(table, group.fileScanTasks());
  }

  /** Picks the runner for a group; tests substitute one to inject faults. */
  @FunctionalInterface
  interface RewriterChoice {
    GroupRewriter choose(Table table, RewriteFileGroup group, CompactionOptions options, ResolvedOrdering ordering);
  }

  static GroupRewriter rewriterFor(Table table, CompactionOptions options, Optional<String> whyNotDuckDb) {
    return switch (options.runner()) {
      case GENERIC -> new GenericRewriter();
      case DUCKDB -> {
        if (whyNotDuckDb.isPresent()) {
          throw new UsageException("--runner duckdb cannot rewrite " + table.name() + ": " + whyNotDuckDb.get());
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
        throw new UsageException("target-file-size-bytes must be a positive number of bytes (got '" + option + "')");
      }
    }
    return PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * {@code group} without the files of a condensed spec (the default with its time field coarsened,
   * as {@code condense} writes aged partitions), or null when nothing is left. Core's planner takes
   * every file outside the output spec, to move it into the default spec: for condensed files that
   * would split them back into the fine partitions condense just left, and the next condense would
   * gather them again.
   */
  private static RewriteFileGroup withoutCondensed(RewriteFileGroup group, Set<Integer> condensed, long target) {
    if (condensed.isEmpty() || group.fileScanTasks().stream().noneMatch(t -> condensed.contains(t.file().specId()))) {
      return group;
    }
    List<FileScanTask> kept = group.fileScanTasks().stream().filter(t -> !condensed.contains(t.file().specId())).toList();
    if (kept.isEmpty()) {
      return null;
    }
    long bytes = kept.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    return new RewriteFileGroup(group.info(), kept, group.outputSpecId(), group.maxOutputFileSize(), group.inputSplitSize(),
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
    if (group.fileScanTasks().stream().anyMatch(t -> t.file().specId() != table.spec().specId())) {
      return "(files of older specs)";
    }
    // the file's own partition: the group's info holds it in the current spec's type
    DataFile first = group.fileScanTasks().get(0).file();
    PartitionSpec spec = table.specs().get(first.specId());
    return spec.isUnpartitioned() ? "(unpartitioned)" : spec.partitionToPath(first.partition());
  }

  private static Set<DeleteFile> deleteFiles(RewriteFileGroup group) {
    Map<String, DeleteFile> byLocation = new java.util.LinkedHashMap<>();
    group.fileScanTasks().forEach(t -> t.deletes().forEach(d -> byLocation.putIfAbsent(d.location(), d)));
    return new HashSet<>(byLocation.values());
  }

  /**
   * Delete files the rewritten groups applied that no live data file needs any more. A Parquet
   * position delete that is not file-scoped stays attached by partition and sequence number to the
   * new files, so whether it still names a live file is read from its file_path column.
   */
  private static long countDangling(Table table, Set<String> applied) {
    Map<String, DeleteFile> attached = new java.util.HashMap<>();
    Set<String> liveData = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        liveData.add(t.file().location());
        t.deletes().forEach(d -> attached.putIfAbsent(d.location(), d));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> inTable = new HashSet<>();
    for (var manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (var reader = org.apache.iceberg.ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        reader.forEach(d -> inTable.add(d.location()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long dangling = 0;
    for (String location : applied) {
      if (!inTable.contains(location)) {
        continue;
      }
      DeleteFile d = attached.get(location);
      if (d == null || d.content() == org.apache.iceberg.FileContent.POSITION_DELETES
          && !org.apache.iceberg.util.ContentFileUtil.isDV(d) && !namesAny(table, d, liveData)) {
        dangling++;
      }
    }
    return dangling;
  }

  private static boolean namesAny(Table table, DeleteFile d, Set<String> liveData) {
    org.apache.iceberg.Schema pathOnly = new org.apache.iceberg.Schema(org.apache.iceberg.MetadataColumns.DELETE_FILE_PATH);
    try (CloseableIterable<org.apache.iceberg.data.Record> rows = org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(d))
        .project(pathOnly)
        .createReaderFunc(fs -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(pathOnly, fs))
        .build()) {
      for (org.apache.iceberg.data.Record r : rows) {
        if (liveData.contains(r.get(0).toString())) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteAll(Table table, List<DataFile> files) {
    for (DataFile f : files) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException ignored) {
        // an uncommitted file we could not remove is an orphan; remove-orphans sweeps it
      }
    }
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** Reads the process's peak resident set size (Linux {@code VmHWM}); -1 where unavailable. */
  static final class PeakMemory {
    private PeakMemory() {}

    static long rssBytes() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith("VmHWM:")) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
          }
        }
      } catch (IOException | RuntimeException ignored) {
        // not Linux: peak memory is reported as unknown
      }
      return -1;
    }
  }

}
