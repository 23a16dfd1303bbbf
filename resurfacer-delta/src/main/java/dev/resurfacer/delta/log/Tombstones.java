package dev.resurfacer.delta.log;

import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@code remove} actions straight from JSON commits with Kernel's JSON reader. Kernel's own
 * checkpoints (4.4.0) leave out tombstones that have not expired, so a snapshot's replay cannot be
 * trusted to know them; the commits since the retention window opened always do.
 */
public final class Tombstones {
  private static final StructType DV = new StructType()
      .add("storageType", StringType.STRING)
      .add("pathOrInlineDv", StringType.STRING)
      .add("offset", IntegerType.INTEGER)
      .add("sizeInBytes", IntegerType.INTEGER)
      .add("cardinality", LongType.LONG);
  static final StructType SCHEMA = new StructType()
      .add(
          "remove",
          new StructType()
              .add("path", StringType.STRING)
              .add("deletionTimestamp", LongType.LONG)
              .add("deletionVector", DV));

  private Tombstones() {}

  /** Every remove action of the given commit files, in commit order. */
  public static List<Tombstone> read(DeltaTable table, List<LogFile> commits) {
    List<Tombstone> out = new ArrayList<>();
    for (LogFile commit : commits) {
      FileStatus status = FileStatus.of(
          table.storage().kernelPath(commit.path()), commit.size(), commit.modificationTime());
      try (CloseableIterator<ColumnarBatch> batches = table
          .engine()
          .getJsonHandler()
          .readJsonFiles(KernelIterators.of(List.of(status)), SCHEMA, Optional.empty())) {
        while (batches.hasNext()) {
          try (CloseableIterator<Row> rows = batches.next().getRows()) {
            while (rows.hasNext()) {
              Row action = rows.next();
              if (action.isNullAt(0)) {
                continue;
              }
              Row remove = action.getStruct(0);
              String path = remove.getString(0);
              long ts = remove.isNullAt(1) ? commit.modificationTime() : remove.getLong(1);
              out.add(new Tombstone(
                  path,
                  table.storage().resolveAll(path),
                  ts,
                  commit.version(),
                  DeletionVectorRef.of(remove, 2, table.storage())));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read commit " + commit.path(), e);
      }
    }
    return out;
  }
}
