package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Carries the rows a concurrent DELETE, UPDATE or MERGE removed from a bin's inputs (by growing
 * their deletion vectors) onto the bin's new files: the newly deleted rows are read from the
 * inputs, found in the new files by content (every value equal, each new row taken at most once:
 * identical rows cannot be told apart, so the table's content is exact either way), and the new
 * files get inline deletion vectors for those positions. What will be committed is read back
 * (vectors decoded, rows at their positions read) and must remove exactly the writer's rows.
 */
final class CarriedVectors {
  /** Positions to delete in each new file, by the file's Kernel path: what tests may falsify. */
  record Translation(Map<String, long[]> positions) {}

  /**
   * @param vectors the {@code deletionVector} struct each new file carries, by its Kernel path
   * @param rows the rows carried
   */
  record Carried(Map<String, Row> vectors, long rows) {
    static final Carried NONE = new Carried(Map.of(), 0);
  }

  /** A translation that could not be made exact: the bin fails with this reason. */
  static final class NotCarried extends RuntimeException {
    NotCarried(String message) {
      super(message);
    }
  }

  private CarriedVectors() {}

  static Carried carry(
      BinWork work,
      CompactionPlan.Bin bin,
      List<DataFileStatus> written,
      Map<StoredFile, Row> readded,
      UnaryOperator<Translation> fault) {
    Map<List<Object>, Integer> wanted = new HashMap<>();
    long count = 0;
    for (LiveFile f : bin.files()) {
      Row now = readded.get(f.file());
      if (now == null) {
        continue;
      }
      Row then = work.scanFiles()
          .get(f.logPath())
          .getStruct(work.scanFiles().get(f.logPath()).getSchema().indexOf("add"));
      Set<Long> before = positions(work, then);
      Set<Long> after = positions(work, now);
      for (long p : before) {
        if (!after.contains(p)) {
          throw new NotCarried("the new deletion vector of " + f.logPath()
              + " no longer deletes row " + p + " (rows came back)");
        }
      }
      TreeSet<Long> newly = new TreeSet<>(after);
      newly.removeAll(before);
      if (!newly.isEmpty()) {
        count += rowsAt(work, f, newly, wanted);
      }
    }
    if (count == 0) {
      return Carried.NONE;
    }
    Map<List<Object>, Integer> expected = new HashMap<>(wanted);
    Translation translation = fault.apply(new Translation(match(work, written, wanted)));
    Map<String, Row> vectors = new LinkedHashMap<>();
    Map<String, long[]> decoded = new HashMap<>();
    for (var e : translation.positions().entrySet()) {
      Row dv = KernelInternals.inlineDeletionVector(e.getValue());
      vectors.put(e.getKey(), dv);
      decoded.put(
          e.getKey(),
          KernelInternals.deletedPositions(work.engine(), work.table().uri(), dv));
    }
    Map<List<Object>, Integer> removed = new HashMap<>();
    for (DataFileStatus f : written) {
      long[] at = decoded.get(f.getPath());
      if (at != null) {
        Set<Long> set = new HashSet<>();
        Arrays.stream(at).forEach(set::add);
        long[] hit = {0};
        forEachRow(work, f, (p, key) -> {
          if (set.contains(p)) {
            removed.merge(key, 1, Integer::sum);
            hit[0]++;
          }
        });
        // A position past the file's last row removes nothing, so the rows would still match,
        // but a vector naming it is malformed and its cardinality no longer counts the deletes.
        if (hit[0] != set.size()) {
          throw new NotCarried("the translated deletion vectors remove rows past a new file's"
              + " end, not exactly the " + count
              + " rows the concurrent commits deleted from the inputs");
        }
      }
    }
    if (!translation.positions().keySet().stream()
        .allMatch(p -> written.stream().anyMatch(w -> w.getPath().equals(p)))) {
      throw new NotCarried("a translated deletion vector names a file the bin did not write");
    }
    if (!removed.equals(expected)) {
      throw new NotCarried("the translated deletion vectors remove "
          + removed.values().stream().mapToLong(i -> i).sum()
          + " rows of the new files, not exactly the " + count
          + " rows the concurrent commits deleted from the inputs");
    }
    return new Carried(vectors, count);
  }

  private static Set<Long> positions(BinWork work, Row add) {
    int dv = add.getSchema().indexOf("deletionVector");
    Set<Long> out = new HashSet<>();
    if (dv >= 0 && !add.isNullAt(dv)) {
      for (long p :
          KernelInternals.deletedPositions(work.engine(), work.table().uri(), add.getStruct(dv))) {
        out.add(p);
      }
    }
    return out;
  }

  /** Adds to {@code into} the rows of {@code file} at {@code positions}, each live at the version read; their count. */
  private static long rowsAt(
      BinWork work, LiveFile file, Set<Long> positions, Map<List<Object>, Integer> into) {
    StructType physicalRead = KernelInternals.physicalReadSchema(work.scanState());
    long found = 0;
    long position = 0;
    try (CloseableIterator<FilteredColumnarBatch> rows = KernelBinRunner.liveRows(
        work, file, ContentFingerprint.stringsAsBinary(physicalRead), physicalRead)) {
      while (rows.hasNext()) {
        FilteredColumnarBatch b = rows.next();
        ColumnVector[] vectors = vectors(b.getData(), work.columns().writtenNames());
        Optional<ColumnVector> selection = b.getSelectionVector();
        for (int r = 0; r < b.getData().getSize(); r++, position++) {
          if (positions.contains(position)) {
            if (selection.isPresent()
                && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
              throw new NotCarried("row " + position + " of " + file.logPath()
                  + " was already deleted at the version read");
            }
            into.merge(key(vectors, r), 1, Integer::sum);
            found++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (found != positions.size()) {
      throw new NotCarried("the new deletion vector of " + file.logPath()
          + " deletes rows beyond its " + position + " rows");
    }
    return found;
  }

  /** Each wanted row's position in the new files, each new row taken at most once. */
  private static Map<String, long[]> match(
      BinWork work, List<DataFileStatus> written, Map<List<Object>, Integer> wanted) {
    Map<String, long[]> out = new LinkedHashMap<>();
    for (DataFileStatus f : written) {
      List<Long> at = new ArrayList<>();
      forEachRow(work, f, (p, key) -> {
        Integer n = wanted.get(key);
        if (n != null) {
          at.add(p);
          if (n == 1) {
            wanted.remove(key);
          } else {
            wanted.put(key, n - 1);
          }
        }
      });
      if (!at.isEmpty()) {
        out.put(f.getPath(), at.stream().mapToLong(Long::longValue).toArray());
      }
    }
    if (!wanted.isEmpty()) {
      throw new NotCarried(wanted.values().stream().mapToLong(i -> i).sum()
          + " rows a concurrent commit deleted are not in the new files");
    }
    return out;
  }

  private interface RowAt {
    void accept(long position, List<Object> key);
  }

  private static void forEachRow(BinWork work, DataFileStatus f, RowAt action) {
    StructType schema = ContentFingerprint.stringsAsBinary(work.columns().written());
    long position = 0;
    try (CloseableIterator<FileReadResult> r = work.engine()
        .getParquetHandler()
        .readParquetFiles(
            KernelIterators.of(
                List.of(FileStatus.of(f.getPath(), f.getSize(), f.getModificationTime()))),
            schema,
            Optional.empty())) {
      while (r.hasNext()) {
        ColumnarBatch b = r.next().getData();
        ColumnVector[] vectors = vectors(b, work.columns().written().fieldNames());
        for (int row = 0; row < b.getSize(); row++, position++) {
          action.accept(position, key(vectors, row));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ColumnVector[] vectors(ColumnarBatch batch, List<String> columns) {
    return columns.stream()
        .map(c -> {
          int i = batch.getSchema().indexOf(c);
          if (i < 0) {
            throw new IllegalStateException(
                "a carried column is missing from " + batch.getSchema());
          }
          return batch.getColumnVector(i);
        })
        .toArray(ColumnVector[]::new);
  }

  private static List<Object> key(ColumnVector[] vectors, int r) {
    List<Object> out = new ArrayList<>(vectors.length);
    for (ColumnVector v : vectors) {
      out.add(value(v, r));
    }
    return out;
  }

  private static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  /** A value as an object that equals another exactly when the values are equal (floats by their bits, decimals with their scale). */
  private static Object value(ColumnVector v, int r) {
    if (v.isNullAt(r)) {
      return NULL;
    }
    DataType t = v.getDataType();
    if (t instanceof BooleanType) {
      return v.getBoolean(r);
    } else if (t instanceof ByteType) {
      return v.getByte(r);
    } else if (t instanceof ShortType) {
      return v.getShort(r);
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return v.getInt(r);
    } else if (t instanceof LongType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType) {
      return v.getLong(r);
    } else if (t instanceof FloatType) {
      return Float.floatToRawIntBits(v.getFloat(r));
    } else if (t instanceof DoubleType) {
      return Double.doubleToRawLongBits(v.getDouble(r));
    } else if (t instanceof StringType) {
      return ByteBuffer.wrap(v.getString(r).getBytes(StandardCharsets.UTF_8));
    } else if (t instanceof BinaryType) {
      return ByteBuffer.wrap(v.getBinary(r));
    } else if (t instanceof DecimalType) {
      return v.getDecimal(r);
    } else if (t instanceof StructType s) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < s.length(); i++) {
        out.add(value(v.getChild(i), r));
      }
      return out;
    } else if (t instanceof ArrayType) {
      ArrayValue a = v.getArray(r);
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < a.getSize(); i++) {
        out.add(value(a.getElements(), i));
      }
      return out;
    } else if (t instanceof MapType) {
      MapValue m = v.getMap(r);
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < m.getSize(); i++) {
        out.add(List.of(value(m.getKeys(), i), value(m.getValues(), i)));
      }
      return out;
    }
    throw new IllegalStateException("cannot compare a column of type " + t);
  }
}
