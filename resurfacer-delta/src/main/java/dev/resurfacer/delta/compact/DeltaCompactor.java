package dev.resurfacer.delta.compact;

import dev.resurfacer.content.DigestScratch;
import dev.resurfacer.content.LocalParquetFile;
import dev.resurfacer.content.RowDigest;
import dev.resurfacer.content.VerificationCpu;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;

/**
 * Rewrites each planned bin into new files and commits it as Delta's OPTIMIZE does: the inputs
 * removed and the outputs added with {@code dataChange=false}, {@code commitInfo.operation =
 * OPTIMIZE}. The plan's runner rewrites each bin: DuckDB bounded by {@code --memory}
 * ({@link DuckDbBinRunner}), or Kernel's own reader and writer ({@link KernelBinRunner}); either way
 * the new files carry the stats Kernel's writer gives its files. Before a bin commits, its output is read back and must hold the
 * same rows (count and order-independent content fingerprint) as its live input, and no commit
 * since the read version may have touched an input; otherwise the bin's new files are deleted and
 * the table is left as it was.
 */
public final class DeltaCompactor {
  public static final String ENGINE_INFO = "resurfacer";
  static final String ICEBERG_COMPAT_V2 = "delta.enableIcebergCompatV2";
  /** Commits tried per bin when other commits keep landing first; each reads the newest version and carries its deletes again. */
  static final int COMMIT_ATTEMPTS = 5;

  private DeltaCompactor() {}

  /**
   * The bins a compaction of the newest version would rewrite, and that version: {@link #execute}
   * writes against it. Reads the log; writes and commits nothing.
   */
  public record Plan(
      DeltaTable table, Snapshot read, CompactionOptions options, CompactionPlan bins) {
    /** The plan as the readout of a preview. */
    public CompactionPlan preview() {
      return bins;
    }
  }

  /** What {@link #execute} would rewrite now. */
  public static Plan plan(DeltaTable table, CompactionOptions options) {
    Snapshot read = table.latest();
    return new Plan(table, read, options, CompactionPlanner.planWrittenHere(table, read, options));
  }

  /** Rewrites and commits the plan's bins, each its own commit. */
  public static CompactionResult execute(Plan plan, Clock clock) {
    return execute(plan, clock, Seam.NONE, Progress.NONE);
  }

  /** As {@link #execute(Plan, Clock)}, telling {@code progress} of each bin as it is done. */
  public static CompactionResult execute(Plan plan, Clock clock, Progress progress) {
    return execute(plan, clock, Seam.NONE, progress);
  }

  /**
   * The one seam for tests to inject faults: {@code afterWrite} may replace a bin's new files before
   * they are verified, {@code beforeCommit} runs after a bin is written and verified, before its
   * commit checks, and {@code translationFault} falsifies the translation of concurrent deletes (it
   * must be refused). No production caller sets one.
   */
  record Seam(
      UnaryOperator<List<DataFileStatus>> afterWrite,
      Runnable beforeCommit,
      UnaryOperator<CarriedVectors.Translation> translationFault) {
    static final Seam NONE = new Seam(UnaryOperator.identity(), () -> {}, UnaryOperator.identity());

    static Seam afterWrite(UnaryOperator<List<DataFileStatus>> afterWrite) {
      return new Seam(afterWrite, NONE.beforeCommit(), NONE.translationFault());
    }

    static Seam beforeCommit(Runnable beforeCommit) {
      return new Seam(NONE.afterWrite(), beforeCommit, NONE.translationFault());
    }

    Seam translationFault(UnaryOperator<CarriedVectors.Translation> fault) {
      return new Seam(afterWrite, beforeCommit, fault);
    }
  }

  static CompactionResult execute(Plan plan, Clock clock, Seam seam) {
    return execute(plan, clock, seam, Progress.NONE);
  }

  private static CompactionResult execute(Plan planned, Clock clock, Seam seam, Progress progress) {
    DeltaTable table = planned.table();
    CompactionOptions options = planned.options();
    UnaryOperator<List<DataFileStatus>> afterWrite = seam.afterWrite();
    Runnable beforeCommit = seam.beforeCommit();
    UnaryOperator<CarriedVectors.Translation> translationFault = seam.translationFault();
    table.storage().requireSafeCommits();
    Snapshot read = planned.read();
    CompactionPlan plan = planned.bins();
    Engine engine = table.engine();
    Scan scan = read.getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    Map<String, Row> scanFiles = scanFileRows(engine, scan);
    List<String> partitionColumns = read.getPartitionColumnNames();
    StructType schema = read.getSchema();
    DataColumns columns = DataColumns.of(read);
    StructType physicalSchema = KernelInternals.physicalSchema(read);
    List<Column> statsColumns =
        KernelInternals.statisticsColumns(columns.physical(), read.getTableProperties());
    boolean columnMapped = KernelInternals.columnMapped(read);
    BinRunner runner =
        plan.runner().equals("duckdb") ? new DuckDbBinRunner() : new KernelBinRunner();

    Progress.Task task = progress.start(
        "compact " + table.name() + " (" + plan.bins().size() + " bins)",
        "files",
        plan.inputFiles(),
        plan.inputBytes());
    Committer committer = new Committer(
        table,
        read,
        plan,
        options,
        clock,
        beforeCommit,
        scanFiles,
        physicalSchema,
        columns,
        newFileTags(read),
        translationFault);
    List<BinOutcome> outcomes = new ArrayList<>();
    // the bins' fingerprints reuse one another's arrays and decompressors
    DigestScratch.Pools digests = ColumnarFingerprint.newScratchPools();
    VerificationCpu verificationCpu = new VerificationCpu();
    // a bin is verified and committed on another thread while the next one is written: Kernel's
    // read-back decodes one file on one core, which DuckDB's writing of the next bin overlaps; one
    // bin in flight at a time, committed in plan order
    ExecutorService finishing = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "delta-verify-commit");
      t.setDaemon(true);
      return t;
    });
    Future<BinOutcome> inFlight = null;
    try {
      CompactionPlan.Bin inFlightBin = null;
      for (CompactionPlan.Bin bin : plan.bins()) {
        if (Thread.currentThread().isInterrupted()) {
          outcomes.add(BinOutcome.failed(
              table.name() + ": " + describe(bin) + ": not started, the run was interrupted"));
          continue;
        }
        task.note(describe(bin));
        // written against the version read; committed on the newest version once the inputs are
        // known untouched since, so the bins of one run do not collide with each other's commits
        Row txnState = read.buildUpdateTableTransaction(ENGINE_INFO, Operation.MANUAL_UPDATE)
            .build(engine)
            .getTransactionState(engine);
        Map<String, Literal> partition =
            PartitionLiterals.of(schema, partitionColumns, bin.partition());
        BinWork work = new BinWork(
            table,
            engine,
            scanState,
            scanFiles,
            txnState,
            partition,
            columns,
            statsColumns,
            columnMapped,
            plan.zOrderColumns(),
            plan.targetFileSize(),
            options,
            digests,
            verificationCpu);
        Map<String, String> physicalPartition =
            PartitionLiterals.physical(schema, partitionColumns, bin.partition());
        RowDigest in = null;
        Optional<List<DataFileStatus>> written;
        String writeFailure = null;
        // the input's live rows are read by Kernel while the runner writes: an account of them
        // independent of the runner's own read (DuckDB's anti-join, Kernel's decoded strings)
        try (ContentFingerprint.Parts inputPrint =
            countOnly(options, bin) ? null : ContentFingerprint.ofInput(work, bin)) {
          List<DataFileStatus> out = runner.write(work, bin);
          try {
            in = inputPrint == null ? null : inputPrint.value();
          } catch (RuntimeException e) {
            deleteQuietly(table.storage(), out);
            throw e;
          }
          written = Optional.of(List.copyOf(afterWrite.apply(out)));
        } catch (IOException | RuntimeException e) {
          written = Optional.empty();
          writeFailure = message(e);
        }
        if (inFlight != null) {
          outcomes.add(ContentFingerprint.awaitToTheEnd(inFlight));
          task.advance(
              inFlightBin.files().size(),
              inFlightBin.files().stream().mapToLong(LiveFile::size).sum());
          inFlight = null;
        }
        if (written.isEmpty()) {
          outcomes.add(
              BinOutcome.failed(table.name() + ": " + describe(bin) + ": " + writeFailure));
          task.advance(
              bin.files().size(), bin.files().stream().mapToLong(LiveFile::size).sum());
          continue;
        }
        List<DataFileStatus> files = written.get();
        RowDigest input = in;
        inFlight = finishing.submit(
            () -> committer.verifyAndCommit(bin, work, input, files, physicalPartition));
        inFlightBin = bin;
      }
      if (inFlight != null) {
        outcomes.add(ContentFingerprint.awaitToTheEnd(inFlight));
        task.advance(
            inFlightBin.files().size(),
            inFlightBin.files().stream().mapToLong(LiveFile::size).sum());
        inFlight = null;
      }
    } finally {
      // when this thread fails, the bin in flight still ends (committed or its files deleted)
      // before the caller hears of the failure, never after
      if (inFlight != null) {
        try {
          ContentFingerprint.awaitToTheEnd(inFlight);
        } catch (RuntimeException | Error ignored) {
          // the failure this thread is already throwing is the one to report
        }
      }
      finishing.shutdown();
      digests.close();
    }
    task.close();
    List<Long> versions = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    long removedFiles = 0, removedBytes = 0, addedFiles = 0, addedBytes = 0, rows = 0;
    for (BinOutcome o : outcomes) {
      o.version().ifPresent(versions::add);
      o.failure().ifPresent(failed::add);
      removedFiles += o.removedFiles();
      removedBytes += o.removedBytes();
      addedFiles += o.addedFiles();
      addedBytes += o.addedBytes();
      rows += o.rows();
    }
    return new CompactionResult(
        plan,
        versions,
        removedFiles,
        removedBytes,
        addedFiles,
        addedBytes,
        rows,
        failed,
        verificationCpu.nanos(),
        verification(options, plan));
  }

  /** What the run checks before each commit, as its result names it. */
  private static String verification(CompactionOptions options, CompactionPlan plan) {
    if (options.verification() == CompactionOptions.Verification.CONTENT) {
      return "content";
    }
    return plan.bins().stream().allMatch(b -> countOnly(options, b))
        ? "count"
        : "count, content where the log has no row count";
  }

  /**
   * Whether a bin is verified by its row count alone: asked for, and the log gives every input file's
   * row count (a file written without stats is read, by content).
   */
  private static boolean countOnly(CompactionOptions options, CompactionPlan.Bin bin) {
    return options.verification() == CompactionOptions.Verification.COUNT
        && bin.files().stream().allMatch(f -> f.numRecords().isPresent());
  }

  private static String message(Exception e) {
    return Failures.oneLine(e);
  }

  /**
   * The tags delta-spark gives each file it writes: on an icebergCompatV2 table the compat version
   * the file was written for ({@code REORG … UPGRADE UNIFORM} rewrites the files without it).
   */
  static Map<String, String> newFileTags(Snapshot snapshot) {
    return "true".equalsIgnoreCase(snapshot.getTableProperties().get(ICEBERG_COMPAT_V2))
        ? Map.of("ICEBERG_COMPAT_VERSION", "2")
        : Map.of();
  }

  /** What became of one bin: its commit's version and sizes, or why it was not committed. */
  private record BinOutcome(
      Optional<Long> version,
      Optional<String> failure,
      long removedFiles,
      long removedBytes,
      long addedFiles,
      long addedBytes,
      long rows) {
    static BinOutcome failed(String why) {
      return new BinOutcome(Optional.empty(), Optional.of(why), 0, 0, 0, 0, 0);
    }
  }

  /** Verifies a written bin against its input and commits it: what one run's bins share. */
  private record Committer(
      DeltaTable table,
      Snapshot read,
      CompactionPlan plan,
      CompactionOptions options,
      Clock clock,
      Runnable beforeCommit,
      Map<String, Row> scanFiles,
      StructType physicalSchema,
      DataColumns columns,
      Map<String, String> tags,
      UnaryOperator<CarriedVectors.Translation> translationFault) {

    /** The bin's live rows, once its new files hold the same rows as {@code in}, every value. */
    private long contentVerified(BinWork work, RowDigest in, List<DataFileStatus> written) {
      RowDigest outPrint = ContentFingerprint.sum(
          written,
          work.verifyThreads(),
          f -> work.verificationCpu()
              .measure(
                  () -> fingerprint(table.engine(), columns, f, work.digests().outputs())));
      if (!in.equals(outPrint)) {
        throw new IllegalStateException(
            "content verification failed: input " + in.rows() + " live rows, output "
                + outPrint.rows() + " rows"
                + (in.rows() == outPrint.rows() ? " with different content" : "")
                + in.differenceFrom(outPrint, columns.writtenNames())
                    .map(d -> " (" + d + ")")
                    .orElse(""));
      }
      return in.rows();
    }

    /**
     * The bin's live rows, once its new files hold as many rows as the log's stats give its input less
     * the rows its deletion vectors delete ({@code --verify count}).
     */
    private static long countVerified(CompactionPlan.Bin bin, List<DataFileStatus> written) {
      long expected = 0;
      for (LiveFile f : bin.files()) {
        expected += f.numRecords().getAsLong() - f.deletedRows();
      }
      long rows = 0;
      for (DataFileStatus f : written) {
        rows += rowsIn(f);
      }
      if (rows != expected) {
        throw new IllegalStateException("count verification failed: input " + expected
            + " live rows, output " + rows + " rows");
      }
      return rows;
    }

    /**
     * The rows a new file holds: a local file's by its Parquet footer (what a reader will see), another's
     * as its writer counted them (the stats it commits with).
     */
    private static long rowsIn(DataFileStatus f) {
      if (f.getPath().startsWith("file:/") || f.getPath().startsWith("/")) {
        try (ParquetFileReader reader = ParquetFileReader.open(
            new LocalParquetFile(LocalStorage.fromKernelSpelling(f.getPath())),
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
          return reader.getRecordCount();
        } catch (IOException e) {
          throw new UncheckedIOException(
              "count verification cannot read new file " + f.getPath(), e);
        }
      }
      return f.getStatistics()
          .orElseThrow(() -> new IllegalStateException(
              "count verification failed: new file " + f.getPath() + " has no row count"))
          .getNumRecords();
    }

    BinOutcome verifyAndCommit(
        CompactionPlan.Bin bin,
        BinWork work,
        RowDigest in,
        List<DataFileStatus> written,
        Map<String, String> physicalPartition) {
      Engine engine = table.engine();
      Map<String, String> metrics = new LinkedHashMap<>();
      boolean committing = false;
      try {
        long rows = in == null ? countVerified(bin, written) : contentVerified(work, in, written);
        beforeCommit.run();
        Set<StoredFile> inputs = new HashSet<>();
        bin.files().forEach(f -> inputs.add(f.file()));
        long binRemovedBytes = bin.files().stream().mapToLong(LiveFile::size).sum();
        long binAddedBytes = written.stream().mapToLong(DataFileStatus::getSize).sum();
        metrics.put("numRemovedFiles", String.valueOf(bin.files().size()));
        metrics.put("numAddedFiles", String.valueOf(written.size()));
        metrics.put("numRemovedBytes", String.valueOf(binRemovedBytes));
        metrics.put("numAddedBytes", String.valueOf(binAddedBytes));
        for (int attempt = 1; ; attempt++) {
          Snapshot latest = TableManager.loadSnapshot(table.uri())
              .withCommitter(KernelInternals.committerNaming(
                  "OPTIMIZE",
                  Map.of(
                      "predicate",
                      jsonArray(
                          options.where().all()
                              ? List.of()
                              : List.of(options.where().text())),
                      "auto",
                      "false",
                      "zOrderBy",
                      jsonArray(plan.zOrderColumns()),
                      "clusterBy",
                      "[]"),
                  () -> metrics))
              .build(engine);
          // checked after the newest snapshot is loaded: every commit it includes has been looked
          // at
          ConcurrentChanges.Changes changes =
              ConcurrentChanges.since(table, read.getVersion(), inputs);
          if (changes.refusal().isPresent()) {
            throw new IllegalStateException(
                "a concurrent commit touched this bin: " + changes.refusal().get());
          }
          CarriedVectors.Carried carried;
          try {
            carried = changes.readded().isEmpty()
                ? CarriedVectors.Carried.NONE
                : CarriedVectors.carry(work, bin, written, changes.readded(), translationFault);
          } catch (CarriedVectors.NotCarried e) {
            throw new IllegalStateException(
                "a concurrent commit's deletes could not be carried onto the new files: "
                    + e.getMessage());
          }
          long now = clock.millis();
          List<Row> actions = new ArrayList<>();
          for (LiveFile f : bin.files()) {
            // a re-added input is removed as the newest version holds it (path and deletion
            // vector):
            // Delta tells a file's adds apart by both
            Row add = changes.readded().get(f.file());
            if (add == null) {
              Row scanFile = scanFiles.get(f.logPath());
              add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            }
            actions.add(KernelInternals.removeWithoutDataChange(add, now));
          }
          for (DataFileStatus f : written) {
            actions.add(KernelInternals.addWithoutDataChange(
                physicalSchema,
                table.storage().rootUri(),
                f,
                physicalPartition,
                tags,
                Optional.ofNullable(carried.vectors().get(f.getPath()))));
          }
          // no retry inside Kernel: a rebase onto a commit that landed after our check would commit
          // the bin past a change ConcurrentChanges never saw; a lost race is retried here, the
          // newest version read again and the deletes carried again, a bounded number of times
          Transaction txn = latest
              .buildUpdateTableTransaction(ENGINE_INFO, Operation.MANUAL_UPDATE)
              .withMaxRetries(0)
              .build(engine);
          committing = true;
          try {
            var result =
                txn.commit(engine, CloseableIterable.inMemoryIterable(KernelIterators.of(actions)));
            return new BinOutcome(
                Optional.of(result.getVersion()),
                Optional.empty(),
                bin.files().size(),
                binRemovedBytes,
                written.size(),
                binAddedBytes,
                rows);
          } catch (io.delta.kernel.exceptions.ConcurrentWriteException
              | io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException lost) {
            // Kernel 4.4 reports a lost race under withMaxRetries(0) as its retry limit reached,
            // not as a concurrent write
            // a store that retried our own put can report our landed entry as another's: then the
            // new files are the table's and must stay (committing stays true)
            if (anyLive(table, written)) {
              throw new IllegalStateException(
                  "the commit landed but was reported as lost to another commit: " + message(lost));
            }
            committing = false;
            if (attempt >= COMMIT_ATTEMPTS) {
              throw new IllegalStateException(
                  "another commit won each of " + COMMIT_ATTEMPTS + " attempts: " + message(lost));
            }
          }
        }
      } catch (RuntimeException e) {
        // a commit can fail after its log entry landed (a lost reply, a timeout): then the new
        // files are the table's, and deleting them would lose rows
        if (!committing || !anyLive(table, written)) {
          deleteQuietly(table.storage(), written);
        }
        return BinOutcome.failed(table.name() + ": " + describe(bin) + ": " + message(e));
      }
    }
  }

  /** A new file's rows read back as written (physical names, by field id where present): the same columns in the same order. */
  static RowDigest fingerprint(
      Engine engine, DataColumns columns, DataFileStatus f, DigestScratch.Pool scratch) {
    return ColumnarFingerprint.ofOutput(columns, f, scratch)
        .orElseGet(() -> kernelFingerprint(engine, columns, f));
  }

  /** {@link #fingerprint} by Kernel's reader, one value at a time. */
  static RowDigest kernelFingerprint(Engine engine, DataColumns columns, DataFileStatus f) {
    ContentFingerprint print =
        new ContentFingerprint(columns.written().fieldNames().size());
    try (CloseableIterator<FileReadResult> r = engine
        .getParquetHandler()
        .readParquetFiles(
            KernelIterators.of(
                List.of(FileStatus.of(f.getPath(), f.getSize(), f.getModificationTime()))),
            ContentFingerprint.stringsAsBinary(columns.written()),
            Optional.empty())) {
      r.forEachRemaining(
          b -> print.add(b.getData(), Optional.empty(), columns.written().fieldNames()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return print.value();
  }

  /** A JSON array of strings, as commitInfo's operation parameters carry them. */
  static String jsonArray(List<String> values) {
    StringBuilder b = new StringBuilder("[");
    for (String v : values) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    }
    return b.append(']').toString();
  }

  private static Map<String, Row> scanFileRows(Engine engine, Scan scan) {
    Map<String, Row> out = new HashMap<>();
    try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            Row r = rows.next();
            Row add = r.getStruct(r.getSchema().indexOf("add"));
            out.put(add.getString(add.getSchema().indexOf("path")), r);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static String describe(CompactionPlan.Bin bin) {
    return "bin of " + bin.files().size() + " files"
        + (bin.partition().isEmpty() ? "" : " in " + bin.partition());
  }

  /** Whether the table's newest version references any of {@code files}; true when that cannot be read. */
  private static boolean anyLive(DeltaTable table, List<DataFileStatus> files) {
    try {
      Set<StoredFile> mine = new HashSet<>();
      files.forEach(f -> mine.add(table.storage().fromKernelPath(f.getPath())));
      for (LiveFile f : dev.resurfacer.delta.scan.LiveFiles.of(table, table.latest())) {
        if (mine.contains(f.file())) {
          return true;
        }
      }
      return false;
    } catch (RuntimeException unreadable) {
      return true; // kept: young unreferenced files are vacuum's after the retention
    }
  }

  static void deleteQuietly(TableStorage storage, List<DataFileStatus> files) {
    for (DataFileStatus f : files) {
      try {
        storage.delete(storage.fromKernelPath(f.getPath()));
      } catch (IOException | RuntimeException ignored) {
        // a leftover is unreferenced and young; vacuum removes it after the retention
      }
    }
  }
}
