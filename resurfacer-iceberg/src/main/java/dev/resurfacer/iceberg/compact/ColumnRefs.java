package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.names.Identifiers;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Column references in {@code --sort-by}, {@code --columns} and compute-stats' columns (and their policy keys): parts quoted
 * as {@link Identifiers} describes ({@code letter/abc}, {@code `letter/abc`}, {@code "a.b"},
 * {@code address.city} for a nested field), resolved part by part through the schema's structs.
 */
public final class ColumnRefs {
  private ColumnRefs() {}

  /** The field {@code text} names, read as one reference. */
  public static Types.NestedField field(Schema schema, String text, String what, String table) {
    return field(schema, Identifiers.parts(text.trim(), what), what, table);
  }

  /**
   * The field {@code parts} names: each part a field of the struct the previous one is. When that
   * walk finds nothing, Iceberg's own dotted lookup gets the joined name, so an unquoted {@code a.b}
   * still finds a top-level column named {@code a.b}.
   */
  public static Types.NestedField field(
      Schema schema, List<String> parts, String what, String table) {
    Types.StructType struct = schema.asStruct();
    Types.NestedField found = null;
    for (String part : parts) {
      found = struct == null ? null : struct.field(part);
      if (found == null) {
        break;
      }
      struct = found.type().isStructType() ? found.type().asStructType() : null;
    }
    if (found == null) {
      found = schema.findField(String.join(".", parts));
    }
    if (found == null) {
      throw new UsageException(
          what + ": no column '" + Identifiers.render(parts) + "' in " + table + " (columns: "
              + schema.columns().stream()
                  .map(c -> Identifiers.quote(c.name()))
                  .collect(Collectors.joining(", "))
              + ")");
    }
    return found;
  }

  /** The name Iceberg's expressions bind {@code field} by. */
  static String icebergName(Schema schema, Types.NestedField field) {
    return schema.findColumnName(field.fieldId());
  }
}
