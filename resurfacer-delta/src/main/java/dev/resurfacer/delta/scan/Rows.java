package dev.resurfacer.delta.scan;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.IntegerType;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads Kernel rows by field name, so a field Kernel adds or reorders never shifts what we read. */
final class Rows {
  private Rows() {}

  static int index(Row row, String field) {
    return row.getSchema().fieldNames().indexOf(field);
  }

  static String string(Row row, String field) {
    int i = index(row, field);
    return i < 0 || row.isNullAt(i) ? null : row.getString(i);
  }

  static Long longOrNull(Row row, String field) {
    int i = index(row, field);
    if (i < 0 || row.isNullAt(i)) {
      return null;
    }
    return row.getSchema().at(i).getDataType() instanceof IntegerType
        ? (long) row.getInt(i)
        : row.getLong(i);
  }

  static Map<String, String> stringMap(Row row, String field) {
    int i = index(row, field);
    Map<String, String> out = new LinkedHashMap<>();
    if (i < 0 || row.isNullAt(i)) {
      return out;
    }
    MapValue m = row.getMap(i);
    ColumnVector keys = m.getKeys();
    ColumnVector values = m.getValues();
    for (int k = 0; k < m.getSize(); k++) {
      out.put(keys.getString(k), values.isNullAt(k) ? null : values.getString(k));
    }
    return out;
  }
}
