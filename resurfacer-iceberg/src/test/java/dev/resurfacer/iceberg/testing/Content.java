package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A table's content as Iceberg's own delete-aware reader returns it, rendered type-tagged and
 * sorted: every value with its Iceberg type and field id, floats as their raw bits (so -0.0, +0.0
 * and NaN payloads differ), strings with their UTF-8 bytes, binary as hex, nested values by field
 * id, maps as sorted entries. Two tables (or one before and after) hold the same content exactly
 * when these lists are equal.
 */
public final class Content {
  private Content() {}

  public static List<String> of(Table table) {
    table.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      return of(table.schema(), records);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Records of {@code schema} (extra trailing columns, such as _pos, are ignored), rendered and sorted. */
  public static List<String> of(Schema schema, Iterable<? extends StructLike> records) {
    List<String> rows = new ArrayList<>();
    for (StructLike r : records) {
      StringBuilder b = new StringBuilder();
      render(schema.asStruct(), r, b);
      rows.add(b.toString());
    }
    rows.sort(null);
    return rows;
  }

  private static void render(Types.StructType struct, StructLike row, StringBuilder b) {
    b.append('{');
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      b.append(fields.get(i).fieldId()).append('=');
      render(fields.get(i).type(), row.get(i, Object.class), b);
      b.append(i + 1 < fields.size() ? ", " : "");
    }
    b.append('}');
  }

  public static String render(Type type, Object v) {
    StringBuilder b = new StringBuilder();
    render(type, v, b);
    return b.toString();
  }

  private static void render(Type type, Object v, StringBuilder b) {
    if (v == null) {
      b.append("null:").append(type.typeId());
      return;
    }
    switch (type.typeId()) {
      case FLOAT ->
        b.append("float:")
            .append(v)
            .append("#")
            .append(Integer.toHexString(Float.floatToRawIntBits((Float) v)));
      case DOUBLE ->
        b.append("double:")
            .append(v)
            .append("#")
            .append(Long.toHexString(Double.doubleToRawLongBits((Double) v)));
      case STRING ->
        b.append("string:")
            .append(v)
            .append("#")
            .append(HexFormat.of()
                .formatHex(v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      case BINARY, FIXED -> {
        byte[] bytes = v instanceof ByteBuffer buf
            ? org.apache.iceberg.util.ByteBuffers.toByteArray(buf)
            : (byte[]) v;
        b.append(type.typeId()).append(":").append(HexFormat.of().formatHex(bytes));
      }
      case DECIMAL ->
        b.append("decimal:")
            .append(((BigDecimal) v).unscaledValue())
            .append('e')
            .append(-((BigDecimal) v).scale());
      case STRUCT -> render(type.asStructType(), (StructLike) v, b);
      case LIST -> {
        b.append('[');
        for (Object e : (List<?>) v) {
          render(type.asListType().elementType(), e, b);
          b.append(';');
        }
        b.append(']');
      }
      case MAP -> {
        TreeSet<String> entries = new TreeSet<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          entries.add(render(type.asMapType().keyType(), e.getKey()) + "->"
              + render(type.asMapType().valueType(), e.getValue()));
        }
        b.append("map").append(entries);
      }
      default ->
        b.append(type.typeId())
            .append(':')
            .append(v)
            .append('/')
            .append(v.getClass().getSimpleName());
    }
  }
}
