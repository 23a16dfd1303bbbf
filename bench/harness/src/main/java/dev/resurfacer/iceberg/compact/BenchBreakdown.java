package dev.resurfacer.iceberg.compact;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * Benchmark-only: where one group's time goes. Lives in the library's package (on the bench
 * classpath only) to time the package-private steps of {@link Compaction} one by one, without
 * committing: the DuckDB rewrite (COPY + footer metrics) and the row-count verification.
 */
public final class BenchBreakdown {
  private BenchBreakdown() {}

  public static void run(Table table, CompactionOptions options, int groupIndex, int concurrency)
      throws Exception {
    long t0 = System.nanoTime();
    PlannedCompaction planned = Compaction.plan(table, options);
    long planMs = (System.nanoTime() - t0) / 1_000_000;
    RewriteFileGroup group = planned.groups().get(groupIndex);
    int cores = Runtime.getRuntime().availableProcessors();
    Path scratch = Files.createTempDirectory(options.scratchDir(), "breakdown-");
    GroupRewriter.Settings settings = new GroupRewriter.Settings(
        options.memoryBytes() / concurrency,
        Math.max(1, cores / concurrency),
        scratch,
        planned.targetFileSize(),
        ResolvedOrdering.resolve(table, options.ordering(), msg -> {}));
    long t1 = System.nanoTime();
    List<DataFile> out = new DuckDbRewriter().rewrite(table, group, settings);
    long rewriteMs = (System.nanoTime() - t1) / 1_000_000;
    long t2 = System.nanoTime();
    long live = LiveRows.count(table, group.fileScanTasks());
    long verifyMs = (System.nanoTime() - t2) / 1_000_000;
    long rows = out.stream().mapToLong(DataFile::recordCount).sum();
    System.out.printf(
        Locale.ROOT,
        "breakdown group %d (%d files, %,d rows), duckdb threads %d, memory %d MB: plan %.1f s, "
            + "duckdb rewrite %.1f s (%,.0f rows/s), verify (generic row count) %.1f s (%,.0f rows/s), live rows %,d%n",
        groupIndex,
        group.inputFileNum(),
        rows,
        settings.threads(),
        settings.memoryBytes() >> 20,
        planMs / 1000.0,
        rewriteMs / 1000.0,
        rows * 1000.0 / Math.max(1, rewriteMs),
        verifyMs / 1000.0,
        live * 1000.0 / Math.max(1, verifyMs),
        live);
    out.forEach(f -> table.io().deleteFile(f.location()));
    DuckDbRewriter.deleteRecursively(scratch);
  }
}
