package dev.resurfacer.bench;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The vacuum benchmark's table: a Delta log of many commits written by Delta Kernel (a delta-spark
 * transaction per commit took 10–20 s on a loaded machine; a Kernel commit takes milliseconds).
 * The first commit adds {@code filesPerCommit} small Parquet files of {@code (id, v)} (written by DuckDB,
 * stats read from their footers as Kernel's writer reports them); every
 * later commit adds copies of them under new names (same bytes, same stats), and every
 * {@code removeEvery}-th commit removes every live file instead, so thousands of files become
 * tombstones. Kernel's post-commit hooks run after each commit, so checkpoints land every 10
 * versions as for any writer. Prints one {@code RESULT} line.
 *
 * <pre>
 * DeltaLogGenerate --table DIR [--commits 2000] [--files-per-commit 2] [--remove-every 50]
 * </pre>
 */
public final class DeltaLogGenerate {
  private static final StructType SCHEMA =
      new StructType().add("id", LongType.LONG).add("v", StringType.STRING);
  private static final int ROWS_PER_FILE = 100;

  private DeltaLogGenerate() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = Args.parse(argv);
    Path root = Path.of(args.get("table")).toAbsolutePath();
    int commits = Integer.parseInt(args.getOrDefault("commits", "2000"));
    int filesPerCommit = Integer.parseInt(args.getOrDefault("files-per-commit", "2"));
    int removeEvery = Integer.parseInt(args.getOrDefault("remove-every", "50"));
    long t0 = System.nanoTime();
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    Engine engine = DefaultEngine.create(conf);
    String uri = "file:" + root + "/";
    Files.createDirectories(root);

    Transaction create = TableManager.buildCreateTableTransaction(uri, SCHEMA, "resurfacer-bench")
        .build(engine);
    Row createState = create.getTransactionState(engine);
    var createContext = Transaction.getWriteContext(engine, createState, Map.of());
    List<DataFileStatus> templates = new ArrayList<>();
    try (java.sql.Connection duck = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement st = duck.createStatement()) {
      for (int f = 0; f < filesPerCommit; f++) {
        Path file = root.resolve("part-template-" + f + ".parquet");
        long from = (long) f * ROWS_PER_FILE;
        st.execute("COPY (SELECT range AS id, 'value-' || range AS v FROM range(" + from + ", "
            + (from + ROWS_PER_FILE) + ")) TO '" + file + "' (FORMAT parquet)");
        templates.add(KernelInternals.withKernelStats(
            conf,
            "file:" + file,
            Files.size(file),
            Files.getLastModifiedTime(file).toMillis(),
            SCHEMA,
            createContext.getStatisticsColumns()));
      }
    }
    List<Row> live = new ArrayList<>();
    commit(engine, create, addsOf(engine, createState, createContext, templates), live);

    int serial = 0;
    long tombstoned = 0;
    int checkpoints = 0;
    for (int made = 1; made < commits; made++) {
      Snapshot snapshot = TableManager.loadSnapshot(uri).build(engine);
      Transaction txn = snapshot
          .buildUpdateTableTransaction("resurfacer-bench", Operation.WRITE)
          .build(engine);
      Row state = txn.getTransactionState(engine);
      List<Row> actions = new ArrayList<>();
      if (made % removeEvery == 0) {
        long now = System.currentTimeMillis();
        for (Row add : live) {
          actions.add(KernelInternals.removeWithoutDataChange(add, now));
        }
        tombstoned += live.size();
        live.clear();
        checkpoints += commitCounting(engine, txn, actions);
      } else {
        var context = Transaction.getWriteContext(engine, state, Map.of());
        List<DataFileStatus> copies = new ArrayList<>();
        for (DataFileStatus template : templates) {
          Path source = Path.of(java.net.URI.create(template.getPath()));
          Path copy = root.resolve(String.format(Locale.ROOT, "part-log-%06d.parquet", serial++));
          Files.copy(source, copy);
          copies.add(new DataFileStatus(
              "file:" + copy,
              template.getSize(),
              Files.getLastModifiedTime(copy).toMillis(),
              template.getStatistics()));
        }
        List<Row> adds = addsOf(engine, state, context, copies);
        checkpoints += commit(engine, txn, adds, live);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "RESULT verb=generate-log commits=%d tombstoned_files=%d live_files=%d checkpoints=%d ms=%d%n",
        commits,
        tombstoned,
        live.size(),
        checkpoints,
        (System.nanoTime() - t0) / 1_000_000);
  }

  private static List<Row> addsOf(
      Engine engine,
      Row state,
      io.delta.kernel.DataWriteContext context,
      List<DataFileStatus> files)
      throws IOException {
    List<Row> out = new ArrayList<>();
    try (CloseableIterator<Row> adds =
        Transaction.generateAppendActions(engine, state, KernelIterators.of(files), context)) {
      adds.forEachRemaining(out::add);
    }
    return out;
  }

  /** Commits {@code adds} (SingleAction rows), records their add structs as live; returns the checkpoints written. */
  private static int commit(Engine engine, Transaction txn, List<Row> adds, List<Row> live)
      throws IOException {
    for (Row action : adds) {
      live.add(action.getStruct(action.getSchema().indexOf("add")));
    }
    return commitCounting(engine, txn, adds);
  }

  private static int commitCounting(Engine engine, Transaction txn, List<Row> actions)
      throws IOException {
    TransactionCommitResult result =
        txn.commit(engine, CloseableIterable.inMemoryIterable(KernelIterators.of(actions)));
    int checkpoints = 0;
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      hook.threadSafeInvoke(engine);
      if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT) {
        checkpoints++;
      }
    }
    return checkpoints;
  }
}
