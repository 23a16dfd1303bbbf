package dev.resurfacer.it.delta;

import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.kernel.VectorBatch;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * A Delta table written and read by Delta Kernel alone (no Spark in the crash suite): an
 * unpartitioned {@code (id bigint, v string)} table, appended one small file per commit.
 */
public final class KernelTable {
  static final StructType SCHEMA =
      new StructType().add("id", LongType.LONG).add("v", StringType.STRING);

  private final Path root;
  private final Engine engine;

  KernelTable(Path root) {
    this.root = root;
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    this.engine = DefaultEngine.create(conf);
  }

  private String uri() {
    return "file:" + root.toAbsolutePath() + "/";
  }

  public static KernelTable create(Path root) {
    KernelTable t = new KernelTable(root);
    TableManager.buildCreateTableTransaction(t.uri(), SCHEMA, "resurfacer-tests")
        .build(t.engine)
        .commit(t.engine, CloseableIterable.emptyIterable());
    return t;
  }

  /** One commit adding one file with rows {@code from .. from + n - 1}. */
  public void append(long from, int n) {
    try {
      Snapshot s = TableManager.loadSnapshot(uri()).build(engine);
      Transaction txn =
          s.buildUpdateTableTransaction("resurfacer-tests", Operation.WRITE).build(engine);
      Row state = txn.getTransactionState(engine);
      long[] ids = new long[n];
      String[] vs = new String[n];
      for (int i = 0; i < n; i++) {
        ids[i] = from + i;
        vs[i] = "v" + (from + i);
      }
      ColumnarBatch batch =
          new VectorBatch(SCHEMA, new ColumnVector[] {new Longs(ids), new Strings(vs)}, n);
      CloseableIterator<FilteredColumnarBatch> data =
          KernelIterators.of(List.of(new FilteredColumnarBatch(batch, Optional.empty())));
      var context = Transaction.getWriteContext(engine, state, Map.of());
      CloseableIterator<DataFileStatus> files = engine
          .getParquetHandler()
          .writeParquetFiles(
              context.getTargetDirectory(),
              Transaction.transformLogicalData(engine, state, data, Map.of()),
              context.getStatisticsColumns());
      CloseableIterator<Row> actions =
          Transaction.generateAppendActions(engine, state, files, context);
      txn.commit(engine, CloseableIterable.inMemoryIterable(actions));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public long version() {
    return TableManager.loadSnapshot(uri()).build(engine).getVersion();
  }

  /** Every row of the latest version as {@code id:v}, sorted; deletion vectors applied by Kernel. */
  public List<String> rows() {
    return rows(TableManager.loadSnapshot(uri()).build(engine));
  }

  /** Every row of {@code version} (time travel), as {@link #rows()}. */
  List<String> rowsAt(long version) {
    return rows(TableManager.loadSnapshot(uri()).atVersion(version).build(engine));
  }

  private List<String> rows(Snapshot s) {
    List<String> out = new ArrayList<>();
    Scan scan = s.getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> rows = files.next().getRows()) {
          while (rows.hasNext()) {
            Row scanFile = rows.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            String path = add.getString(add.getSchema().indexOf("path"));
            long size = add.getLong(add.getSchema().indexOf("size"));
            FileStatus status =
                FileStatus.of("file:" + root.toAbsolutePath().resolve(path), size, 0);
            CloseableIterator<ColumnarBatch> physical = engine
                .getParquetHandler()
                .readParquetFiles(KernelIterators.of(List.of(status)), SCHEMA, Optional.empty())
                .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
              while (logical.hasNext()) {
                try (CloseableIterator<Row> r = logical.next().getRows()) {
                  while (r.hasNext()) {
                    Row row = r.next();
                    out.add(row.getLong(0) + ":" + row.getString(1));
                  }
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.sort(null);
    return out;
  }

  private record Longs(long[] values) implements ColumnVector {
    @Override
    public DataType getDataType() {
      return LongType.LONG;
    }

    @Override
    public int getSize() {
      return values.length;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int row) {
      return false;
    }

    @Override
    public long getLong(int row) {
      return values[row];
    }
  }

  private record Strings(String[] values) implements ColumnVector {
    @Override
    public DataType getDataType() {
      return StringType.STRING;
    }

    @Override
    public int getSize() {
      return values.length;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int row) {
      return values[row] == null;
    }

    @Override
    public String getString(int row) {
      return values[row];
    }
  }
}
