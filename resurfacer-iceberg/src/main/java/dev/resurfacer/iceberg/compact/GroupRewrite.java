package dev.resurfacer.iceberg.compact;

import dev.resurfacer.content.DigestScratch;
import dev.resurfacer.content.VerificationCpu;
import dev.resurfacer.iceberg.compact.RewrittenGroup.Verdict;
import java.util.HashSet;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;

/**
 * Rewrites one group and verifies its new files against its input before anything may commit. A
 * group that fails either step leaves no file behind; a verified one holds its new files as the
 * group's output, for the commit phase.
 */
final class GroupRewrite {
  private GroupRewrite() {}

  static RewrittenGroup run(
      Table table,
      RewriteFileGroup group,
      int index,
      GroupRewriter rewriter,
      GroupRewriter.Settings settings,
      CompactionOptions options) {
    long started = System.nanoTime();
    String partition = GroupPlanner.partitionPath(table, group);
    int deletes = GroupPlanner.deleteFiles(group).size();
    List<DataFile> outputs = List.of();
    VerificationCpu verificationCpu = new VerificationCpu();
    // the input is digested while the runner writes: verification overlaps the rewrite
    java.util.concurrent.CompletableFuture<Digested> input =
        options.verification() == CompactionOptions.Verification.CONTENT
            ? java.util.concurrent.CompletableFuture.supplyAsync(
                () -> verificationCpu.measure(
                    () -> Digested.input(table, group.fileScanTasks(), pool(settings, true))),
                settings.verifying())
            : null;
    try {
      outputs = rewriter.rewrite(table, group, settings);
      long written = outputs.stream().mapToLong(DataFile::recordCount).sum();
      String mismatch = input != null
          ? contentMismatch(
              table,
              group,
              outputs,
              input,
              pool(settings, true),
              pool(settings, false),
              // a group with more than a core (a sort's, one at a time) reads its output on two
              settings.threads() > 1 ? settings.verifying() : null,
              verificationCpu)
          : countMismatch(table, group, written);
      if (mismatch != null) {
        deleteAll(table, outputs);
        return new RewrittenGroup(
            index,
            partition,
            rewriter.name(),
            Verdict.VERIFICATION_FAILED,
            group.inputFileNum(),
            group.inputFilesSizeInBytes(),
            0,
            0,
            deletes,
            0,
            Compaction.millisSince(started),
            verificationCpu.nanos(),
            mismatch + "; new files removed, nothing committed");
      }
      group.setOutputFiles(new HashSet<>(outputs));
      return new RewrittenGroup(
          index,
          partition,
          rewriter.name(),
          Verdict.VERIFIED,
          group.inputFileNum(),
          group.inputFilesSizeInBytes(),
          outputs.size(),
          outputs.stream().mapToLong(DataFile::fileSizeInBytes).sum(),
          deletes,
          written,
          Compaction.millisSince(started),
          verificationCpu.nanos(),
          null);
    } catch (Exception e) {
      if (input != null) {
        input.cancel(true);
      }
      deleteAll(table, outputs);
      String message = Compaction.failureMessage(
          e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
              ? c.getCause()
              : e);
      return new RewrittenGroup(
          index,
          partition,
          rewriter.name(),
          Verdict.FAILED,
          group.inputFileNum(),
          group.inputFilesSizeInBytes(),
          0,
          0,
          deletes,
          0,
          Compaction.millisSince(started),
          verificationCpu.nanos(),
          message);
    }
  }

  /** The run's pool of input or output digest arrays, or null where the caller keeps none. */
  private static DigestScratch.Pool pool(GroupRewriter.Settings settings, boolean inputs) {
    DigestScratch.Pools s = settings.digests();
    return s == null ? null : inputs ? s.inputs() : s.outputs();
  }

  private static String countMismatch(Table table, RewriteFileGroup group, long written) {
    long expected = expectedRows(table, group);
    return written == expected
        ? null
        : "row count mismatch: " + expected + " live input rows, " + written + " written";
  }

  /**
   * Both sides are read independently of the runner that wrote the output, from parquet-java's pages
   * decoded whole ({@link ColumnarDigest}) where they read the group exactly, else by Iceberg's generic
   * reader ({@link Checksum}): a runner's misreading of its input (names, encodings, nested ids,
   * signed zeros) cannot agree with itself here. Both sides of a group are digested by the same
   * reader. Each read streams, so memory stays bounded.
   */
  private static String contentMismatch(
      Table table,
      RewriteFileGroup group,
      List<DataFile> outputs,
      java.util.concurrent.CompletableFuture<Digested> input,
      DigestScratch.Pool inputScratch,
      DigestScratch.Pool outputScratch,
      java.util.concurrent.Executor outputHelper,
      VerificationCpu verificationCpu) {
    Digested in;
    try {
      in = input.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    List<String> locations = outputs.stream().map(DataFile::location).toList();
    boolean columnar = in.columnar();
    Digested out = verificationCpu.measure(() ->
        Digested.output(table, locations, columnar, outputScratch, outputHelper, verificationCpu));
    if (in.columnar() && !out.columnar()) {
      in = verificationCpu.measure(
          () -> Digested.input(table, group.fileScanTasks(), false, inputScratch));
    }
    return in.digest()
        .differenceFrom(out.digest(), in.names())
        .map(d -> "content mismatch: " + d)
        .orElse(null);
  }

  /** One side's digest, and whether the columnar reader made it. */
  record Digested(dev.resurfacer.content.RowDigest digest, boolean columnar, List<String> names) {
    /** @param scratch the run's digest arrays, or null for a digest's own */
    static Digested input(Table table, List<FileScanTask> tasks, DigestScratch.Pool scratch) {
      return input(table, tasks, true, scratch);
    }

    static Digested input(
        Table table,
        List<FileScanTask> tasks,
        boolean columnarIfPossible,
        DigestScratch.Pool scratch) {
      org.apache.iceberg.Schema schema = LiveRows.rewriteSchema(table);
      List<String> names = schema.columns().stream()
          .map(org.apache.iceberg.types.Types.NestedField::name)
          .toList();
      if (columnarIfPossible && ColumnarDigest.reads(table, schema, tasks)) {
        try {
          return new Digested(
              columnar(scratch, s -> ColumnarDigest.ofTasks(table, tasks, schema, s)), true, names);
        } catch (dev.resurfacer.content.PageHashes.Unreadable e) {
          // a file the page decoder cannot read exactly: the generic reader digests the group
        }
      }
      return new Digested(Checksum.ofTasks(table, tasks, schema).digest(), false, names);
    }

    /**
     * @param helper where half the columnar read runs (the files' odd row groups), or null to read
     *     all on this thread
     * @param cpu what the helper's half adds its CPU time to; this thread's is the caller's to measure
     */
    static Digested output(
        Table table,
        List<String> locations,
        boolean columnar,
        DigestScratch.Pool scratch,
        java.util.concurrent.Executor helper,
        VerificationCpu cpu) {
      org.apache.iceberg.Schema schema = LiveRows.rewriteSchema(table);
      List<String> names = schema.columns().stream()
          .map(org.apache.iceberg.types.Types.NestedField::name)
          .toList();
      if (columnar) {
        try {
          return new Digested(
              helper == null
                  ? columnar(scratch, s -> ColumnarDigest.ofFiles(table, locations, schema, s))
                  : inTwo(table, locations, schema, scratch, helper, cpu),
              true,
              names);
        } catch (dev.resurfacer.content.PageHashes.Unreadable e) {
          // as for the input: the generic reader digests both sides
        }
      }
      return new Digested(Checksum.ofFiles(table, locations, schema).digest(), false, names);
    }

    /**
     * The files' columnar digest, their even row groups read on this thread and their odd ones on
     * {@code helper}: a sort's group, alone on the machine, read its output on one core while the
     * other idled. Both halves are done before it returns or throws.
     */
    private static dev.resurfacer.content.RowDigest inTwo(
        Table table,
        List<String> locations,
        org.apache.iceberg.Schema schema,
        DigestScratch.Pool scratch,
        java.util.concurrent.Executor helper,
        VerificationCpu cpu) {
      java.util.concurrent.CompletableFuture<dev.resurfacer.content.RowDigest> odd =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> cpu.measure(() -> columnar(
                  scratch, s -> ColumnarDigest.ofFiles(table, locations, schema, s, 1, 2))),
              helper);
      dev.resurfacer.content.RowDigest even;
      try {
        even = columnar(scratch, s -> ColumnarDigest.ofFiles(table, locations, schema, s, 0, 2));
      } catch (RuntimeException e) {
        odd.handle((digest, failure) -> null).join();
        throw e;
      }
      try {
        return even.plus(odd.join());
      } catch (java.util.concurrent.CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
    }

    private static dev.resurfacer.content.RowDigest columnar(
        DigestScratch.Pool pool,
        java.util.function.Function<DigestScratch, dev.resurfacer.content.RowDigest> digest) {
      if (pool == null) {
        try (DigestScratch own = ColumnarDigest.newScratch()) {
          return digest.apply(own);
        }
      }
      return pool.with(digest);
    }
  }

  /**
   * Live input rows, from a source independent of the runner: without delete files they are the
   * record counts the manifests hold (no data read needed); with deletes, Iceberg's own
   * delete-aware reader counts them.
   */
  static long expectedRows(Table table, RewriteFileGroup group) {
    if (group.fileScanTasks().stream().allMatch(t -> t.deletes().isEmpty())) {
      return group.fileScanTasks().stream()
          .mapToLong(t -> t.file().recordCount())
          .sum();
    }
    return LiveRows.count(table, group.fileScanTasks());
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
}
