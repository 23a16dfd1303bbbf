package dev.resurfacer.iceberg.compact;

import dev.resurfacer.zorder.ZKeysSql;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** SQL for ordering inside DuckDB: sort keys with Iceberg's transforms, and the z-value of {@link ZValues}. */
final class DuckOrdering {
  private DuckOrdering() {}

  /** Extra key columns computed next to the data ({@code AS __k<i>}); empty unless z-ordering. */
  static List<String> keyColumns(ResolvedOrdering ordering) {
    List<String> keys = new ArrayList<>();
    if (ordering instanceof ResolvedOrdering.Z z) {
      for (int i = 0; i < z.columns().size(); i++) {
        Types.NestedField f = z.columns().get(i);
        keys.add("COALESCE(" + key(f.type(), "t." + DuckDbRewriter.col(f.fieldId()))
            + ", 0::UBIGINT) AS __k" + i);
      }
    }
    return keys;
  }

  /** ORDER BY terms over the source relation {@code src}. */
  static List<String> orderBy(ResolvedOrdering ordering) {
    List<String> terms = new ArrayList<>();
    if (ordering instanceof ResolvedOrdering.Sorted s) {
      for (SortField f : s.order().fields()) {
        Type type = s.order().schema().findType(f.sourceId());
        String value =
            transform(f.transform().toString(), type, "src." + DuckDbRewriter.col(f.sourceId()));
        terms.add(value
            + (f.direction() == SortDirection.DESC ? " DESC" : " ASC")
            + (f.nullOrder() == NullOrder.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST"));
      }
    } else if (ordering instanceof ResolvedOrdering.Z z) {
      terms.addAll(ZKeysSql.interleavedChunks("src.__k", z.columns().size()));
    }
    return terms;
  }

  static String key(Type type, String x) {
    return switch (type.typeId()) {
      case BOOLEAN -> ZKeysSql.ofBoolean(x);
      case INTEGER, LONG -> ZKeysSql.ofLong(x);
      case DATE -> ZKeysSql.ofDate(x);
      case TIMESTAMP -> ZKeysSql.ofTimestamp(x);
      case DECIMAL -> ZKeysSql.ofDecimal(x, ((Types.DecimalType) type).scale());
      case STRING -> ZKeysSql.ofString(x);
      case BINARY -> ZKeysSql.ofBytes(x);
      case UUID -> ZKeysSql.ofUuid(x);
      default -> throw new IllegalArgumentException("no DuckDB z-order key for " + type);
    };
  }

  /** Iceberg's monotone transforms in DuckDB (the session time zone is UTC). */
  static String transform(String transform, Type type, String x) {
    boolean date = type.typeId() == Type.TypeID.DATE;
    return switch (transform) {
      case "identity" -> x;
      case "year" -> "(year(" + x + ") - 1970)";
      case "month" -> "((year(" + x + ") - 1970) * 12 + month(" + x + ") - 1)";
      case "day" -> "date_diff('day', DATE '1970-01-01', CAST(" + x + " AS DATE))";
      case "hour" ->
        date
            ? "(date_diff('day', DATE '1970-01-01', " + x + ") * 24)"
            : "CAST(floor(epoch_us(" + x + ") / 3600000000.0) AS BIGINT)";
      default -> {
        if (transform.startsWith("truncate[")) {
          long w = Long.parseLong(transform.substring(9, transform.length() - 1));
          yield "(" + x + " - (((" + x + " % " + w + ") + " + w + ") % " + w + "))";
        }
        throw new IllegalArgumentException("no DuckDB form of transform " + transform);
      }
    };
  }
}
