package dev.resurfacer.delta.compact;

import dev.resurfacer.SafetyRefusal;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A partition's values as the log writes them (strings, null for null) turned into typed literals for Kernel's writer. */
final class PartitionLiterals {
  private PartitionLiterals() {}

  static Map<String, Literal> of(StructType schema, List<String> partitionColumns, Map<String, String> values) {
    Map<String, Literal> out = new LinkedHashMap<>();
    for (String column : partitionColumns) {
      DataType type = schema.get(column).getDataType();
      String v = values.get(column);
      out.put(column, v == null ? Literal.ofNull(type) : literal(type, v, column));
    }
    return out;
  }

  private static Literal literal(DataType type, String v, String column) {
    if (type instanceof StringType) {
      return Literal.ofString(v);
    } else if (type instanceof LongType) {
      return Literal.ofLong(Long.parseLong(v));
    } else if (type instanceof IntegerType) {
      return Literal.ofInt(Integer.parseInt(v));
    } else if (type instanceof ShortType) {
      return Literal.ofShort(Short.parseShort(v));
    } else if (type instanceof ByteType) {
      return Literal.ofByte(Byte.parseByte(v));
    } else if (type instanceof BooleanType) {
      return Literal.ofBoolean(Boolean.parseBoolean(v));
    } else if (type instanceof DateType) {
      return Literal.ofDate((int) LocalDate.parse(v).toEpochDay());
    }
    throw new SafetyRefusal("compaction does not yet write partitions of column " + column + " of type " + type);
  }
}
