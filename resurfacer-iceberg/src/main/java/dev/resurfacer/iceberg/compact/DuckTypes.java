package dev.resurfacer.iceberg.compact;

import java.util.Optional;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg types as DuckDB types, and the {@code FIELD_IDS} map DuckDB writes into Parquet. Types
 * DuckDB cannot round-trip faithfully map to empty, which routes the group to the generic runner.
 */
final class DuckTypes {
  private DuckTypes() {}

  static Optional<String> of(Type type) {
    return Optional.ofNullable(sql(type));
  }

  private static String sql(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return "BOOLEAN";
      case INTEGER:
        return "INTEGER";
      case LONG:
        return "BIGINT";
      case FLOAT:
        return "FLOAT";
      case DOUBLE:
        return "DOUBLE";
      case DATE:
        return "DATE";
      case TIME:
        return "TIME";
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMPTZ" : "TIMESTAMP";
      case STRING:
        return "VARCHAR";
      case UUID:
        return "UUID";
      case BINARY:
        return "BLOB";
      case DECIMAL: {
        Types.DecimalType d = (Types.DecimalType) type;
        return "DECIMAL(" + d.precision() + "," + d.scale() + ")";
      }
      case STRUCT: {
        StringBuilder b = new StringBuilder("STRUCT(");
        for (Types.NestedField f : type.asStructType().fields()) {
          String child = sql(f.type());
          if (child == null) {
            return null;
          }
          if (b.length() > 7) {
            b.append(", ");
          }
          b.append(ident(f.name())).append(' ').append(child);
        }
        return b.append(')').toString();
      }
      case LIST: {
        String element = sql(type.asListType().elementType());
        return element == null ? null : element + "[]";
      }
      case MAP: {
        String key = sql(type.asMapType().keyType());
        String value = sql(type.asMapType().valueType());
        return key == null || value == null ? null : "MAP(" + key + ", " + value + ")";
      }
      default:
        // fixed(n) comes back as a different type, nanosecond timestamps and v3 variant/geometry
        // have no faithful DuckDB Parquet form: the generic runner handles them
        return null;
    }
  }

  /** The FIELD_IDS entry for one column: an id, or a struct of ids for nested types. */
  static String fieldIds(Types.NestedField field) {
    Type t = field.type();
    if (t.isPrimitiveType()) {
      return Integer.toString(field.fieldId());
    }
    StringBuilder b = new StringBuilder("{__duckdb_field_id: ").append(field.fieldId());
    switch (t.typeId()) {
      case STRUCT ->
        t.asStructType()
            .fields()
            .forEach(f -> b.append(", ").append(key(f.name())).append(": ").append(fieldIds(f)));
      case LIST ->
        b.append(", element: ").append(fieldIds(t.asListType().fields().get(0)));
      case MAP ->
        b.append(", key: ")
            .append(fieldIds(t.asMapType().fields().get(0)))
            .append(", value: ")
            .append(fieldIds(t.asMapType().fields().get(1)));
      default -> throw new IllegalArgumentException(t.toString());
    }
    return b.append('}').toString();
  }

  static String ident(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  static String key(String name) {
    return '\'' + name.replace("'", "''") + '\'';
  }

  static String string(String value) {
    return '\'' + value.replace("'", "''") + '\'';
  }
}
