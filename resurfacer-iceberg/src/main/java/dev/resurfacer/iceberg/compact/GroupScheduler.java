package dev.resurfacer.iceberg.compact;

import dev.resurfacer.maintain.RewriteOptions;
import dev.resurfacer.progress.Progress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * Runs a plan's groups on a bounded pool: each is rewritten and verified ({@link GroupRewrite}), a
 * group DuckDB failed on under {@code --runner auto} gets the generic runner next, and each verified
 * group is handed to the commit phase as soon as it is ready. Shares the machine's cores and
 * {@code --memory} among the groups in flight.
 */
final class GroupScheduler {
  private final PlannedCompaction plan;
  private final Compaction.RewriterChoice choice;
  private final Progress bar;
  private final Consumer<String> lines;

  /**
   * @param bar told of each group as it finishes: its files and bytes, out of the plan's
   * @param lines one line per finished group, for a log
   */
  GroupScheduler(
      PlannedCompaction plan,
      Compaction.RewriterChoice choice,
      Progress bar,
      Consumer<String> lines) {
    this.plan = plan;
    this.choice = choice;
    this.bar = bar;
    this.lines = lines;
  }

  /** @param verified takes each group whose new files were verified, from the pool's threads */
  List<RewrittenGroup> run(long smallGroupBytes, Consumer<RewriteFileGroup> verified) {
    Table table = plan.table();
    CompactionOptions options = plan.options();
    List<RewriteFileGroup> groups = plan.groups();
    int cores = Runtime.getRuntime().availableProcessors();
    boolean sortsLargeGroups = plan.ordering() instanceof ResolvedOrdering.Sorted
        && groups.stream().allMatch(g -> g.inputFilesSizeInBytes() > smallGroupBytes);
    int concurrency = Math.min(
        groupsAtOnce(options.shared(), localInputs(groups), sortsLargeGroups, groups.size(), cores),
        groups.size());
    Path scratch = options.newScratchDir("resurfacer-compact-");
    // one verification read per group in flight, on at most the machine's cores; each holds one
    // Parquet row group of its file (a few MB), far below what --memory gives DuckDB
    ExecutorService verifying =
        Executors.newFixedThreadPool(Math.max(1, Math.min(concurrency, cores)), r -> {
          Thread t = new Thread(r, "compact-verify");
          t.setDaemon(true);
          return t;
        });
    int threadsPerGroup = Math.max(1, cores / concurrency);
    DuckDbDatabase database = new DuckDbDatabase(
        options.memoryBytes(),
        concurrency,
        threadsPerGroup,
        !(plan.ordering() instanceof ResolvedOrdering.None),
        scratch.resolve("spill"));
    // the groups' digests reuse each other's arrays: one scratch per digest running at once
    dev.resurfacer.content.DigestScratch.Pools digests = ColumnarDigest.newScratchPools();
    GroupRewriter.Settings settings = new GroupRewriter.Settings(
        options.memoryBytes() / concurrency,
        threadsPerGroup,
        scratch,
        plan.targetFileSize(),
        plan.ordering(),
        smallGroupBytes,
        verifying,
        database,
        digests);

    List<RewrittenGroup> results = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    Progress.Task task = bar.start(
        "compact " + table.name() + " (" + groups.size()
            + (groups.size() == 1 ? " group)" : " groups)"),
        "files",
        plan.readout().filesToRewrite(),
        plan.readout().bytesToRewrite());
    try {
      List<Future<RewrittenGroup>> futures = new ArrayList<>();
      for (int i = 0; i < groups.size(); i++) {
        final int index = i;
        RewriteFileGroup group = groups.get(i);
        futures.add(pool.submit(() -> {
          RewrittenGroup r = rewriteWithFallback(group, index, settings);
          if (r.verified()) {
            verified.accept(group);
          }
          // the log has always named a verified group by the status it commits with
          String status = r.verified() ? "committed" : r.verdict().name().toLowerCase(Locale.ROOT);
          lines.accept(String.format(
              Locale.ROOT,
              "group %d/%d %s: %s, %d files -> %d, %s/s%s, %s",
              index + 1,
              groups.size(),
              r.partition(),
              status,
              r.inputFiles(),
              r.outputFiles(),
              dev.resurfacer.units.ByteSizes.format(
                  r.inputBytes() * 1000 / Math.max(1, r.millis())),
              r.verificationCpuNanos() > 0
                  ? String.format(
                      Locale.ROOT, ", verification %.2f CPU-s", r.verificationCpuNanos() / 1e9)
                  : "",
              r.message() == null ? r.runner() : r.message()));
          task.note("group " + (index + 1) + "/" + groups.size() + " " + r.partition());
          task.advance(group.inputFileNum(), group.inputFilesSizeInBytes());
          return r;
        }));
      }
      for (Future<RewrittenGroup> f : futures) {
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
      digests.close();
      try {
        database.close();
      } catch (java.sql.SQLException e) {
        lines.accept("closing DuckDB's database failed: " + e.getMessage());
      }
      DuckDbRewriter.deleteRecursively(scratch);
    }
    return results;
  }

  /**
   * How many groups are rewritten at once: {@code max-concurrent-file-group-rewrites} when it is
   * given. Unset, Iceberg's 5, but the cores when every input file is local and the plan has at
   * least twice as many groups: a local group's rewrite is all CPU, and more groups than cores only
   * took turns on them (four groups of the 10M-row table on 2 cores: more CPU-seconds than two at a
   * time and twice the peak RSS, docs/benchmarks.md); and one when {@code sortsLargeGroups} (a
   * sort whose every group is larger than the small-group size), so DuckDB sorts each on every
   * core. With fewer groups all start at once as before, so the last of them never runs alone on
   * one core. Remote inputs are staged through FileIO first, where more groups than cores keep the
   * network busy.
   */
  static int groupsAtOnce(
      RewriteOptions options,
      boolean localInputs,
      boolean sortsLargeGroups,
      int groups,
      int cores) {
    if (options.values().containsKey(RewriteOptions.MAX_CONCURRENT_FILE_GROUP_REWRITES)) {
      return options.maxConcurrentGroups();
    }
    if (localInputs && groups >= 2 * cores) {
      // DuckDB sorts one large group on every core faster than one group per core on one thread
      // each, in less memory: the 10M-row table's sort 7-21% less wall, 9% less CPU, a third less
      // RSS (docs/benchmarks.md); groups small enough to share the run's one-thread database
      // still run side by side
      return sortsLargeGroups ? 1 : Math.max(1, Math.min(cores, options.maxConcurrentGroups()));
    }
    return options.maxConcurrentGroups();
  }

  static boolean localInputs(List<RewriteFileGroup> groups) {
    return groups.stream()
        .flatMap(g -> g.fileScanTasks().stream())
        .allMatch(t -> PlacedFiles.localPath(t.file().location()) != null);
  }

  private RewrittenGroup rewriteWithFallback(
      RewriteFileGroup group, int index, GroupRewriter.Settings settings) {
    Table table = plan.table();
    CompactionOptions options = plan.options();
    GroupRewriter rewriter = choice.choose(table, group, options, plan.ordering());
    RewrittenGroup r = GroupRewrite.run(table, group, index, rewriter, settings, options);
    if (r.verified()
        || !r.runner().equals("duckdb")
        || options.runner() != CompactionOptions.Runner.AUTO) {
      return r;
    }
    // auto promises a faithful rewrite, not a DuckDB one: whatever DuckDB failed on, the
    // generic runner (Iceberg's own reader and writer) gets the group next
    RewrittenGroup retry =
        GroupRewrite.run(table, group, index, new GenericRewriter(), settings, options);
    String duckdb = "duckdb "
        + (r.verdict() == RewrittenGroup.Verdict.VERIFICATION_FAILED
            ? "failed verification"
            : "failed")
        + " (" + r.message() + ")";
    return retry.withMessage(
        retry.verified()
            ? duckdb + ", rewritten by the generic runner"
            : duckdb + "; the generic runner then failed too: " + retry.message());
  }
}
