package dev.resurfacer.iceberg.compact;

import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Decides from a data file's Parquet footer whether DuckDB reads it exactly as Iceberg does.
 * DuckDB matches top-level columns by field id (we pass it the table schema), but inside a struct
 * it matches fields by name, case-insensitively; it reads an unannotated BYTE_ARRAY as a blob; and
 * it adds virtual columns named {@code filename} and {@code file_row_number}. A file that any of
 * these would misread goes to the generic runner instead.
 */
final class DuckDbFidelity {
  static final Set<String> DUCKDB_VIRTUAL_COLUMNS = Set.of("filename", "file_row_number");

  private DuckDbFidelity() {}

  /** Why DuckDB would misread this file under {@code schema}, or empty when it reads it exactly. */
  static Optional<String> check(Schema schema, InputFile file) {
    String name = file.location().substring(file.location().lastIndexOf('/') + 1);
    MessageType footer;
    try {
      footer = footerSchema(file);
    } catch (UncheckedIOException | org.apache.iceberg.exceptions.NotFoundException e) {
      // not ours to judge: the generic runner reads the file and its failure is the group's
      return Optional.of("cannot read the Parquet footer of data file " + name + ": "
          + Compaction.failureMessage(e));
    }
    Map<Integer, org.apache.parquet.schema.Type> byId = new HashMap<>();
    Map<String, String> folded = new HashMap<>();
    for (org.apache.parquet.schema.Type column : footer.getFields()) {
      if (column.getId() == null) {
        return Optional.of(
            "data file " + name + " has no Parquet field ids (read through the name mapping)");
      }
      byId.put(column.getId().intValue(), column);
      String lower = column.getName().toLowerCase(Locale.ROOT);
      if (DUCKDB_VIRTUAL_COLUMNS.contains(lower)) {
        return Optional.of("data file " + name + " has a column named " + column.getName()
            + ", a DuckDB virtual column");
      }
      String twin = folded.put(lower, column.getName());
      if (twin != null) {
        return Optional.of("data file " + name + " has columns " + twin + " and " + column.getName()
            + ", which DuckDB does not tell apart");
      }
    }
    for (Types.NestedField field : schema.columns()) {
      org.apache.parquet.schema.Type stored = byId.get(field.fieldId());
      if (stored != null) {
        Optional<String> why = check(field.type(), stored, field.name());
        if (why.isPresent()) {
          return Optional.of("data file " + name + ": " + why.get());
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> check(
      Type expected, org.apache.parquet.schema.Type stored, String path) {
    switch (expected.typeId()) {
      case STRING -> {
        if (!stored.isPrimitive()
            || stored.asPrimitiveType().getPrimitiveTypeName()
                != PrimitiveType.PrimitiveTypeName.BINARY
            || !(stored.getLogicalTypeAnnotation()
                instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation)) {
          return Optional.of("string " + path + " is stored as " + describe(stored)
              + " without the UTF8 annotation");
        }
        return Optional.empty();
      }
      case STRUCT -> {
        if (stored.isPrimitive()) {
          return Optional.of(path + " is not stored as a group");
        }
        return checkStruct(expected.asStructType(), stored.asGroupType(), path);
      }
      case LIST -> {
        Optional<org.apache.parquet.schema.Type> element =
            threeLevel(stored, 1).map(repeated -> repeated.getType(0));
        if (element.isEmpty()) {
          return Optional.of("list " + path + " is not a standard three-level Parquet list");
        }
        return child(expected.asListType().fields().get(0), element.get(), path + ".element");
      }
      case MAP -> {
        Optional<GroupType> entries = threeLevel(stored, 2);
        if (entries.isEmpty()) {
          return Optional.of("map " + path + " is not a standard Parquet map");
        }
        Optional<String> key =
            child(expected.asMapType().fields().get(0), entries.get().getType(0), path + ".key");
        return key.isPresent()
            ? key
            : child(
                expected.asMapType().fields().get(1), entries.get().getType(1), path + ".value");
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  private static Optional<String> child(
      Types.NestedField expected, org.apache.parquet.schema.Type stored, String path) {
    if (stored.getId() == null || stored.getId().intValue() != expected.fieldId()) {
      return Optional.of(path + " is stored with field id " + stored.getId() + ", the table's is "
          + expected.fieldId());
    }
    return check(expected.type(), stored, path);
  }

  /**
   * Nested fields must be stored under exactly the table's names and ids: DuckDB finds them by name,
   * so a sanitised name ({@code user-id} stored as {@code user_x2Did}), a rename, a field dropped
   * and re-added under the same name, a missing field or two names differing only in case would
   * each be read as the wrong field or as NULL.
   */
  private static Optional<String> checkStruct(
      Types.StructType expected, GroupType stored, String path) {
    if (stored.getFieldCount() != expected.fields().size()) {
      return Optional.of("struct " + path + " is stored with " + stored.getFieldCount()
          + " fields, the table has " + expected.fields().size());
    }
    Map<String, String> folded = new HashMap<>();
    for (org.apache.parquet.schema.Type f : stored.getFields()) {
      Types.NestedField field =
          f.getId() == null ? null : expected.field(f.getId().intValue());
      if (field == null) {
        return Optional.of("nested field " + path + "." + f.getName() + " is stored with field id "
            + f.getId() + ", which the table's struct does not have");
      }
      if (!field.name().equals(f.getName())) {
        return Optional.of(
            "nested field " + path + "." + field.name() + " is stored as " + f.getName());
      }
      String twin = folded.put(f.getName().toLowerCase(Locale.ROOT), f.getName());
      if (twin != null) {
        return Optional.of("struct " + path + " has fields " + twin + " and " + f.getName()
            + ", which DuckDB does not tell apart");
      }
      Optional<String> why = check(field.type(), f, path + "." + field.name());
      if (why.isPresent()) {
        return why;
      }
    }
    return Optional.empty();
  }

  /** The repeated middle group of a three-level list (one child) or map (two children). */
  private static Optional<GroupType> threeLevel(
      org.apache.parquet.schema.Type stored, int children) {
    if (stored.isPrimitive() || stored.asGroupType().getFieldCount() != 1) {
      return Optional.empty();
    }
    org.apache.parquet.schema.Type repeated = stored.asGroupType().getType(0);
    if (repeated.isPrimitive()
        || !repeated.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)
        || repeated.asGroupType().getFieldCount() != children) {
      return Optional.empty();
    }
    return Optional.of(repeated.asGroupType());
  }

  private static String describe(org.apache.parquet.schema.Type stored) {
    return stored.isPrimitive()
        ? stored.asPrimitiveType().getPrimitiveTypeName().name()
        : "a group";
  }

  private static MessageType footerSchema(InputFile file) {
    return ParquetFooters.schemaOnly(file).getFileMetaData().getSchema();
  }

  /**
   * DuckDB's Parquet writer dictionary-encodes floats keyed by SQL equality, so within one row group
   * -0.0 and +0.0 become whichever came first, and every NaN the first NaN's bits. Files whose
   * metrics count NaNs are refused here; signed zeros and uncounted NaNs are looked for in the data
   * by {@link #floatCheck} just before DuckDB writes.
   */
  static Optional<String> countedNaNs(Schema schema, List<org.apache.iceberg.FileScanTask> tasks) {
    for (Types.NestedField field :
        org.apache.iceberg.types.TypeUtil.indexById(schema.asStruct()).values()) {
      Type.TypeID type = field.type().typeId();
      if (type != Type.TypeID.FLOAT && type != Type.TypeID.DOUBLE) {
        continue;
      }
      for (org.apache.iceberg.FileScanTask task : tasks) {
        Map<Integer, Long> nans = task.file().nanValueCounts();
        Long n = nans == null ? null : nans.get(field.fieldId());
        if (n != null && n > 0) {
          return Optional.of(
              field.name() + " holds NaN, whose bits DuckDB's Parquet dictionary does not keep");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * A query over the group's input that names the first float column (top level or inside structs)
   * holding both -0.0 and +0.0, or any NaN; it returns NULL when there is none. Only float columns
   * are read, and only those whose metrics in some input file cannot rule out a zero or a NaN
   * ({@link #neitherZeroNorNaN}): that pass over the data was a tenth of a bin-pack's CPU.
   */
  static Optional<String> floatCheck(
      Schema schema, String source, List<org.apache.iceberg.FileScanTask> tasks) {
    List<String> cases = new java.util.ArrayList<>();
    java.util.function.IntPredicate ruledOut =
        id -> tasks.stream().allMatch(t -> neitherZeroNorNaN(t.file(), id));
    for (Types.NestedField f : schema.columns()) {
      collectFloats(f, DuckDbRewriter.col(f.fieldId()), f.name(), cases, ruledOut);
    }
    if (cases.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("SELECT COALESCE(" + String.join(", ", cases) + ") FROM " + source);
  }

  private static void collectFloats(
      Types.NestedField f,
      String expr,
      String path,
      List<String> cases,
      java.util.function.IntPredicate ruledOut) {
    Type.TypeID type = f.type().typeId();
    if (type == Type.TypeID.STRUCT) {
      for (Types.NestedField child : f.type().asStructType().fields()) {
        collectFloats(
            child,
            "struct_extract(" + expr + ", " + DuckTypes.string(child.name()) + ")",
            path + "." + child.name(),
            cases,
            ruledOut);
      }
      return;
    }
    if ((type == Type.TypeID.FLOAT || type == Type.TypeID.DOUBLE) && ruledOut.test(f.fieldId())) {
      return;
    }
    // inside a list or map every float shares one dictionary: one check covers them all
    String nan = anyFloat(f.type(), expr, e -> "isnan(" + e + ")", 1);
    if (nan == null) {
      return;
    }
    String minusZero = anyFloat(f.type(), expr, e -> "(" + e + " = 0 AND signbit(" + e + "))", 1);
    String plusZero =
        anyFloat(f.type(), expr, e -> "(" + e + " = 0 AND NOT signbit(" + e + "))", 1);
    String where = f.type().isPrimitiveType() ? path : path + " (or a value inside it)";
    cases.add("CASE WHEN bool_or(" + nan + ") THEN " + DuckTypes.string(where + " holds NaN")
        + " WHEN bool_or(" + minusZero + ") AND bool_or(" + plusZero + ")"
        + " THEN " + DuckTypes.string(where + " holds both -0.0 and +0.0") + " END");
  }

  /**
   * Whether the file's metrics prove the float column holds no zero of either sign and no NaN: its
   * NaN count is a known 0 and its bounds lie on one side of zero (Iceberg orders -0.0 below +0.0,
   * and a writer's bounds must hold every value, or its own scans would skip rows). Without such
   * metrics the data is read.
   */
  static boolean neitherZeroNorNaN(org.apache.iceberg.ContentFile<?> file, int fieldId) {
    Map<Integer, Long> nans = file.nanValueCounts();
    Long n = nans == null ? null : nans.get(fieldId);
    if (n == null || n != 0) {
      return false;
    }
    Map<Integer, java.nio.ByteBuffer> lower = file.lowerBounds();
    Map<Integer, java.nio.ByteBuffer> upper = file.upperBounds();
    java.nio.ByteBuffer lo = lower == null ? null : lower.get(fieldId);
    java.nio.ByteBuffer hi = upper == null ? null : upper.get(fieldId);
    if (lo == null || hi == null) {
      return false;
    }
    double min = asDouble(lo);
    double max = asDouble(hi);
    if (Double.isNaN(min) || Double.isNaN(max)) {
      return false;
    }
    return Double.compare(min, 0.0) > 0 || Double.compare(max, -0.0) < 0;
  }

  /** A float or double bound (Iceberg stores 4 or 8 little-endian bytes) as a double; NaN when it is neither. */
  private static double asDouble(java.nio.ByteBuffer bound) {
    java.nio.ByteBuffer b = bound.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    return switch (b.remaining()) {
      case 4 -> b.getFloat(b.position());
      case 8 -> b.getDouble(b.position());
      default -> Double.NaN;
    };
  }

  /** A DuckDB expression true when {@code test} holds for any float at or under {@code expr}; null when there is none. */
  private static String anyFloat(
      Type type, String expr, java.util.function.UnaryOperator<String> test, int depth) {
    String element = "x" + depth;
    switch (type.typeId()) {
      case FLOAT, DOUBLE -> {
        return test.apply(expr);
      }
      case STRUCT -> {
        List<String> parts = new java.util.ArrayList<>();
        for (Types.NestedField child : type.asStructType().fields()) {
          String part = anyFloat(
              child.type(),
              "struct_extract(" + expr + ", " + DuckTypes.string(child.name()) + ")",
              test,
              depth);
          if (part != null) {
            parts.add("COALESCE(" + part + ", false)");
          }
        }
        return parts.isEmpty() ? null : "(" + String.join(" OR ", parts) + ")";
      }
      case LIST -> {
        String inner = anyFloat(type.asListType().elementType(), element, test, depth + 1);
        return inner == null
            ? null
            : "list_bool_or(list_transform(" + expr + ", lambda " + element + ": " + inner + "))";
      }
      case MAP -> {
        String keys = anyFloat(type.asMapType().keyType(), element, test, depth + 1);
        String values = anyFloat(type.asMapType().valueType(), element, test, depth + 1);
        List<String> parts = new java.util.ArrayList<>();
        if (keys != null) {
          parts.add("COALESCE(list_bool_or(list_transform(map_keys(" + expr + "), lambda " + element
              + ": " + keys + ")), false)");
        }
        if (values != null) {
          parts.add("COALESCE(list_bool_or(list_transform(map_values(" + expr + "), lambda "
              + element + ": " + values + ")), false)");
        }
        return parts.isEmpty() ? null : "(" + String.join(" OR ", parts) + ")";
      }
      default -> {
        return null;
      }
    }
  }

  /** Names DuckDB would confuse among the table's own top-level columns, or empty. */
  static Optional<String> tableNames(List<Types.NestedField> columns) {
    Map<String, String> folded = new HashMap<>();
    for (Types.NestedField f : columns) {
      String lower = f.name().toLowerCase(Locale.ROOT);
      if (DUCKDB_VIRTUAL_COLUMNS.contains(lower)) {
        return Optional.of("column " + f.name() + " has the name of a DuckDB virtual column");
      }
      String twin = folded.put(lower, f.name());
      if (twin != null) {
        return Optional.of("columns " + twin + " and " + f.name()
            + " differ only in case, which DuckDB does not tell apart");
      }
    }
    return Optional.empty();
  }
}
