package dev.resurfacer.cli;

import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.table.DeltaTables;
import io.delta.kernel.Operation;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Delta commits made by Delta Kernel itself, for tests of the CLI. */
final class DeltaKernelWrites {
  private DeltaKernelWrites() {}

  /** Commits adding the data file {@code file} (no stats; a path under the table is written relative, any other absolute); returns the actions committed. */
  static List<Row> add(Path table, Path file) throws Exception {
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    var txn = TableManager.loadSnapshot(table.toUri().toString())
        .build(engine)
        .buildUpdateTableTransaction("resurfacer-tests", Operation.WRITE)
        .build(engine);
    var state = txn.getTransactionState(engine);
    var status = new DataFileStatus(
        file.toUri().toString(),
        Files.size(file),
        Files.getLastModifiedTime(file).toMillis(),
        Optional.empty());
    List<Row> adds = new ArrayList<>();
    try (CloseableIterator<Row> it = Transaction.generateAppendActions(
        engine,
        state,
        KernelIterators.of(List.of(status)),
        Transaction.getWriteContext(engine, state, Map.of()))) {
      it.forEachRemaining(adds::add);
    }
    txn.commit(engine, CloseableIterable.inMemoryIterable(KernelIterators.of(adds)));
    return adds;
  }
}
