package dev.resurfacer.iceberg.compact;

import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;

/**
 * Carries the row-level deletes a writer committed on a group's input files while the group was
 * rewritten onto the group's new files. The deletes are found by position (Iceberg's own delete
 * loader reads the position-delete files and deletion vectors of each input at the newest snapshot
 * and at the rewrite's starting one; the difference is what the writer deleted meanwhile) and
 * translated by content: the deleted rows, read as they were live at the start, are matched as a
 * multiset against the rows of the new files, each new row taken at most once and only on equality
 * of every value (row lineage included on v3, where it makes every row distinct). Two rows equal in
 * every value are the same to any query, so deleting either keeps the content exact; and matching by
 * content holds for every runner and ordering without the runners recording where each row went.
 *
 * <p>The translation is then checked against what was written: the new delete files are read back
 * with Iceberg's loader, and the rows they remove from the new files must be exactly (as a multiset)
 * the rows the writer's deletes removed from the inputs: a delete lost, applied twice or applied to
 * another row fails the check and the group.
 */
final class ConcurrentDeletes {
  private ConcurrentDeletes() {}

  /**
   * The deletes to carry for one group: the rows the writer deleted (by input file and position) and
   * where they are in the new files. Tests substitute a faulty one to prove the check catches it.
   */
  record Translation(
      Map<String, List<Long>> deletedInputPositions, Map<DataFile, List<Long>> outputPositions) {
    long rows() {
      return outputPositions.values().stream().mapToLong(List::size).sum();
    }
  }

  /**
   * What carrying a group's concurrent deletes needs in the commit.
   *
   * @param basis per input file, the position deletes it was translated from: while they are the
   *     same, the translation still holds at a newer snapshot
   */
  record Carried(
      List<DeleteFile> written,
      Set<DeleteFile> replaced,
      long rows,
      Map<String, Set<String>> basis) {}

  /** Per input file, the locations of the position deletes that apply to it in {@code now}. */
  static Map<String, Set<String>> basis(RewriteFileGroup group, Map<String, FileScanTask> now) {
    Map<String, Set<String>> out = new HashMap<>();
    for (FileScanTask start : group.fileScanTasks()) {
      out.put(
          start.file().location(),
          locations(positionDeletes(now.get(start.file().location()))));
    }
    return out;
  }

  /** Why a group's concurrent deletes cannot be carried; the group is given up with this message. */
  static final class NotCarried extends RuntimeException {
    NotCarried(String message) {
      super(message);
    }
  }

  /**
   * @param now each input file's scan task at the newest snapshot (its deletes as they are now)
   * @param fault test seam applied to the translation before it is written; identity otherwise
   */
  static Carried carry(
      Table table,
      RewriteFileGroup group,
      Map<String, FileScanTask> now,
      UnaryOperator<Translation> fault) {
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
    Schema schema = LiveRows.rewriteSchema(table);
    Schema withPos = TypeUtil.join(schema, new Schema(MetadataColumns.ROW_POSITION));
    int posIndex = schema.columns().size();
    Map<List<Object>, Integer> wanted = new HashMap<>();
    Map<String, List<Long>> deletedAt = new LinkedHashMap<>();
    Set<DeleteFile> replaced = new HashSet<>();
    long rows = 0;
    for (FileScanTask start : group.fileScanTasks()) {
      String location = start.file().location();
      FileScanTask current = now.get(location);
      List<DeleteFile> then = positionDeletes(start);
      List<DeleteFile> later = positionDeletes(current);
      // the DVs the inputs carry now go with them; a DV may be replaced by a writer, so it is the
      // current one
      later.stream().filter(org.apache.iceberg.util.ContentFileUtil::isDV).forEach(replaced::add);
      if (locations(then).equals(locations(later))) {
        continue;
      }
      PositionDeleteIndex before = loader.loadPositionDeletes(then, location);
      PositionDeleteIndex after = loader.loadPositionDeletes(later, location);
      List<Long> positions = new ArrayList<>();
      // rows live at the start (every delete of the start applied, equality deletes included) that
      // are deleted now
      try (CloseableIterable<Record> live = LiveRows.read(table, start, withPos)) {
        for (Record r : live) {
          long pos = (Long) r.get(posIndex);
          if (after.isDeleted(pos) && !before.isDeleted(pos)) {
            positions.add(pos);
            wanted.merge(key(r, posIndex), 1, Integer::sum);
            rows++;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (!positions.isEmpty()) {
        deletedAt.put(location, positions);
      }
      // a writer's position-delete file that names only this input is fully carried: it goes too
      for (DeleteFile d : later) {
        if (!org.apache.iceberg.util.ContentFileUtil.isDV(d)
            && location.equals(
                org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(d))
            && locations(then).stream().noneMatch(d.location()::equals)) {
          replaced.add(d);
        }
      }
    }
    if (rows == 0) {
      return new Carried(List.of(), replaced, 0, basis(group, now));
    }
    Map<List<Object>, Integer> expected = new HashMap<>(wanted);
    Map<DataFile, List<Long>> outputPositions = match(table, group, schema, wanted);
    long unmatched = wanted.values().stream().mapToLong(Integer::longValue).sum();
    if (unmatched > 0) {
      throw new NotCarried(unmatched + " of the " + rows
          + " rows a concurrent writer deleted were not found in the new files");
    }
    Translation translation = fault.apply(new Translation(deletedAt, outputPositions));
    List<DeleteFile> written = write(table, translation.outputPositions());
    try {
      Map<List<Object>, Integer> removed = removedRows(table, group, schema, written, loader);
      if (!removed.equals(expected)) {
        throw new NotCarried("carried deletes failed verification: the new delete files remove "
            + count(removed) + " rows of the new files, not exactly the " + rows
            + " rows the concurrent deletes removed from the inputs");
      }
    } catch (RuntimeException e) {
      delete(table, written);
      throw e;
    }
    return new Carried(written, replaced, rows, basis(group, now));
  }

  private static long count(Map<List<Object>, Integer> multiset) {
    return multiset.values().stream().mapToLong(Integer::longValue).sum();
  }

  private static List<DeleteFile> positionDeletes(FileScanTask task) {
    return task.deletes().stream()
        .filter(d -> d.content() == FileContent.POSITION_DELETES)
        .toList();
  }

  private static Set<String> locations(List<DeleteFile> deletes) {
    Set<String> out = new HashSet<>();
    deletes.forEach(d -> out.add(d.location()));
    return out;
  }

  /** Takes each wanted row from the new files at most once; what is left in {@code wanted} was not found. */
  private static Map<DataFile, List<Long>> match(
      Table table, RewriteFileGroup group, Schema schema, Map<List<Object>, Integer> wanted) {
    Map<DataFile, List<Long>> out = new LinkedHashMap<>();
    Set<Object> firstValues = new HashSet<>();
    wanted.keySet().forEach(k -> firstValues.add(k.get(0)));
    for (DataFile file : group.addedFiles()) {
      if (wanted.isEmpty()) {
        break;
      }
      StoredRows.forEach(table, file.location(), schema, (pos, row) -> {
        if (wanted.isEmpty() || !firstValues.contains(normalize(row.get(0)))) {
          return;
        }
        List<Object> k = key(row, schema.columns().size());
        Integer left = wanted.get(k);
        if (left != null) {
          if (left == 1) {
            wanted.remove(k);
          } else {
            wanted.put(k, left - 1);
          }
          out.computeIfAbsent(file, f -> new ArrayList<>()).add(pos);
        }
      });
    }
    return out;
  }

  /** The rows of the group's new files that the written delete files remove, as Iceberg's loader reads those files. */
  private static Map<List<Object>, Integer> removedRows(
      Table table,
      RewriteFileGroup group,
      Schema schema,
      List<DeleteFile> written,
      BaseDeleteLoader loader) {
    Map<List<Object>, Integer> out = new HashMap<>();
    Set<String> outputs = new HashSet<>();
    group.addedFiles().forEach(f -> outputs.add(f.location()));
    for (DeleteFile d : written) {
      String target = org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(d);
      if (target == null || !outputs.contains(target)) {
        // a delete for any other file would remove nothing we can see here: count it as a mismatch
        out.merge(List.of("delete file for another data file", d.location()), 1, Integer::sum);
      }
    }
    for (DataFile file : group.addedFiles()) {
      PositionDeleteIndex index = loader.loadPositionDeletes(written, file.location());
      if (index.isEmpty()) {
        continue;
      }
      long[] hit = {0};
      StoredRows.forEach(table, file.location(), schema, (pos, row) -> {
        if (index.isDeleted(pos)) {
          out.merge(key(row, schema.columns().size()), 1, Integer::sum);
          hit[0]++;
        }
      });
      // A position past the file's last row removes nothing a reader sees, yet the delete file
      // is malformed (a vector's cardinality no longer counts the rows it removes).
      if (hit[0] != index.cardinality()) {
        out.merge(List.of("positions past the end of", file.location()), 1, Integer::sum);
      }
    }
    return out;
  }

  /** Deletion vectors on v3 (one per new file), file-scoped position-delete files on v2. */
  private static List<DeleteFile> write(Table table, Map<DataFile, List<Long>> positions) {
    Map<DataFile, List<Long>> sorted = new LinkedHashMap<>();
    positions.forEach((f, p) -> sorted.put(f, p.stream().distinct().sorted().toList()));
    if (LiveRows.formatVersion(table) >= 3) {
      return TableWrites.writeDeletionVectors(table, sorted);
    }
    List<DeleteFile> out = new ArrayList<>();
    try {
      for (Map.Entry<DataFile, List<Long>> e : sorted.entrySet()) {
        DataFile f = e.getKey();
        PartitionSpec spec = table.specs().get(f.specId());
        out.add(TableWrites.writePositionDeletes(
            table,
            spec,
            f.partition(),
            e.getValue().stream()
                .map(p -> new TableWrites.Position(f.location(), p))
                .toList()));
      }
    } catch (RuntimeException e) {
      delete(table, out);
      throw e;
    }
    return out;
  }

  static void delete(Table table, List<DeleteFile> files) {
    for (DeleteFile f : files) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException ignored) {
        // an uncommitted file we could not remove is an orphan; remove-orphans sweeps it
      }
    }
  }

  /** The row's first {@code width} values, normalized so that equal keys mean equal values (floats by their bits). */
  private static List<Object> key(StructLike row, int width) {
    List<Object> out = new ArrayList<>(width);
    for (int i = 0; i < width; i++) {
      out.add(normalize(row.get(i, Object.class)));
    }
    return out;
  }

  private static Object normalize(Object v) {
    if (v == null) {
      return NullValue.NULL;
    } else if (v instanceof Float f) {
      return new Bits("float", Float.floatToRawIntBits(f));
    } else if (v instanceof Double d) {
      return new Bits("double", Double.doubleToRawLongBits(d));
    } else if (v instanceof CharSequence s) {
      return s.toString();
    } else if (v instanceof ByteBuffer b) {
      return ByteBuffer.wrap(org.apache.iceberg.util.ByteBuffers.toByteArray(b));
    } else if (v instanceof byte[] b) {
      return ByteBuffer.wrap(b.clone());
    } else if (v instanceof java.math.BigDecimal d) {
      return List.of("decimal", d.scale(), d.unscaledValue());
    } else if (v instanceof StructLike s) {
      return key(s, s.size());
    } else if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(e -> out.add(normalize(e)));
      return List.of("list", out);
    } else if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new HashMap<>();
      m.forEach((k, e) -> out.put(normalize(k), normalize(e)));
      return List.of("map", out);
    }
    return v;
  }

  private enum NullValue {
    NULL
  }

  private record Bits(String type, long bits) {}
}
