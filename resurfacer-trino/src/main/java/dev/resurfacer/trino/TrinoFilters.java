package dev.resurfacer.trino;

import static dev.resurfacer.trino.TrinoTableName.literal;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.filter.SqlFilters;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Our {@code --where} filter and {@code --partition} path as a Trino {@code WHERE} clause
 * ({@link SqlFilters}), with literals typed from the table's schema (dates and timestamps as Trino
 * date/timestamp literals), so user text never reaches Trino as SQL. Trino's optimize accepts only
 * predicates it can enforce by partition, which {@link TrinoFailures} reports as such.
 */
final class TrinoFilters {
  private static final SqlFilters.Dialect TRINO = new SqlFilters.Dialect() {
    @Override
    public String engine() {
      return "trino";
    }

    @Override
    public String column(List<String> parts) {
      return parts.stream().map(TrinoTableName::quote).collect(Collectors.joining("."));
    }

    @Override
    public String literal(Type type, Object value) {
      return value(type, value);
    }
  };

  private TrinoFilters() {}

  /** The SQL predicate for {@code where} and {@code partition} (either may be null); null when both are. */
  static String where(Table table, String where, String partition) {
    return SqlFilters.sql(
        table, SqlFilters.filter(table, where, partition, "trino", "Trino's optimize"), TRINO);
  }

  /** A Trino literal of an Iceberg value in its internal representation. */
  private static String value(Type type, Object v) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG -> v.toString();
      case FLOAT -> "REAL '" + v + "'";
      case DOUBLE -> "DOUBLE '" + v + "'";
      case DECIMAL -> "DECIMAL '" + ((BigDecimal) v).toPlainString() + "'";
      case STRING -> literal(v.toString());
      case DATE -> "DATE '" + LocalDate.ofEpochDay(((Number) v).longValue()) + "'";
      case TIMESTAMP ->
        "TIMESTAMP '" + SqlFilters.timestamp(((Number) v).longValue())
            + (((Types.TimestampType) type).shouldAdjustToUTC() ? " UTC'" : "'");
      case BINARY, FIXED -> "X'" + SqlFilters.hex((ByteBuffer) v) + "'";
      default ->
        throw new UsageException(
            "--where with --engine trino: a " + type + " literal has no Trino form here");
    };
  }
}
