package dev.resurfacer.delta.compact;

import dev.resurfacer.content.LocalParquetFile;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.table.LocalStorage;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.Type;

/**
 * On a table in column-mapping {@code id} mode, Kernel (as Spark) finds a data file's columns by
 * Parquet field id, and by name only where the file lacks the id; the DuckDB runner finds them by
 * physical name. Both read the same values only if, at every struct level, the file's column
 * carrying a field's id also carries its physical name. A file converted from Iceberg, or written by
 * a writer that names columns by their logical names and tags the ids, does not: DuckDB would read
 * NULL or another column there, and the bin would only fail its verification.
 */
final class FieldIdNames {
  private FieldIdNames() {}

  /**
   * Where a file of the bins stores a field id under another name than the table's physical one,
   * or empty when none does. Reads the footers of the bins' local files only, up to the first such file.
   */
  static Optional<String> mismatch(StructType physical, List<CompactionPlan.Bin> bins) {
    for (CompactionPlan.Bin bin : bins) {
      for (LiveFile f : bin.files()) {
        GroupType footer;
        try (ParquetFileReader reader = ParquetFileReader.open(
            new LocalParquetFile(LocalStorage.path(f.file())),
            // only the schema, and no Hadoop Configuration per file (parsing its XML defaults cost
            // more than the footer)
            ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withMetadataFilter(ParquetMetadataConverter.SKIP_ROW_GROUPS)
                .build())) {
          footer = reader.getFooter().getFileMetaData().getSchema();
        } catch (IOException | RuntimeException e) {
          // Kernel's runner reads the file, or fails the bin naming why
          return Optional.of(
              "cannot read the Parquet footer of data file " + f.logPath() + ": " + e.getMessage());
        }
        Optional<String> why = mismatch(physical, footer, "");
        if (why.isPresent()) {
          return Optional.of("data file " + f.logPath() + " stores " + why.get()
              + " (DuckDB reads by name, Delta by field id)");
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> mismatch(StructType expected, GroupType stored, String path) {
    Map<Integer, Type> byId = new HashMap<>();
    Map<String, String> folded = new HashMap<>();
    for (Type column : stored.getFields()) {
      if (column.getId() != null) {
        byId.put(column.getId().intValue(), column);
      }
      // DuckDB's names are case-insensitive; Kernel's fallback prefers the exact name
      String twin = folded.put(column.getName().toLowerCase(Locale.ROOT), column.getName());
      if (twin != null) {
        return Optional.of("columns " + path + twin + " and " + path + column.getName()
            + ", which DuckDB does not tell apart");
      }
    }
    for (StructField field : expected.fields()) {
      Optional<Long> id = KernelInternals.parquetFieldId(field);
      Type column = id.map(i -> byId.get(i.intValue())).orElse(null);
      if (column != null && !column.getName().equals(field.getName())) {
        return Optional.of("field id " + id.get() + " as " + path + column.getName()
            + ", not under the table's physical name " + path + field.getName());
      }
      if (column == null && stored.containsField(field.getName())) {
        column = stored.getType(field.getName());
      }
      if (column != null) {
        Optional<String> inner = nested(field.getDataType(), column, path + field.getName());
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    return Optional.empty();
  }

  /** The struct fields inside a column of type {@code t}, through lists' elements and maps' keys and values, checked as above. */
  private static Optional<String> nested(DataType t, Type column, String path) {
    if (column.isPrimitive()) {
      return Optional.empty();
    }
    GroupType group = column.asGroupType();
    if (t instanceof StructType struct) {
      return mismatch(struct, group, path + ".");
    }
    if (group.getFieldCount() != 1 || group.getType(0).isPrimitive()) {
      return Optional.empty();
    }
    GroupType repeated = group.getType(0).asGroupType();
    if (t instanceof ArrayType a) {
      // the element of a 3-level list, or the repeated group itself in a legacy 2-level one
      Type element = repeated.getName().equals("list") && repeated.getFieldCount() == 1
          ? repeated.getType(0)
          : repeated;
      return nested(a.getElementType(), element, path + ".element");
    }
    if (t instanceof MapType m && repeated.getFieldCount() == 2) {
      Optional<String> key = nested(m.getKeyType(), repeated.getType(0), path + ".key");
      return key.isPresent() ? key : nested(m.getValueType(), repeated.getType(1), path + ".value");
    }
    return Optional.empty();
  }
}
