package dev.resurfacer.spark.iceberg;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.filter.SqlFilters;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Our {@code --where} filter and {@code --partition} path for Spark's {@code rewrite_data_files}:
 * one Iceberg expression (the partition path as equalities on the identity fields' source columns),
 * which our preview plans with, and the same expression as Spark SQL text for the procedure's
 * {@code where} argument ({@link SqlFilters}). Spark converts that text back to the same Iceberg
 * expression and plans with the same core planner, which is why the preview names the files Spark
 * rewrites.
 */
final class SparkFilters {
  private static final SqlFilters.Dialect SPARK = new SqlFilters.Dialect() {
    @Override
    public String engine() {
      return "spark";
    }

    /** A nested column as {@code `a`.`b`}. */
    @Override
    public String column(List<String> parts) {
      return parts.stream().map(SparkTable::quote).collect(Collectors.joining("."));
    }

    @Override
    public String literal(Type type, Object value) {
      return value(type, value);
    }

    @Override
    public String isNaN(String column) {
      return "isnan(" + column + ")";
    }

    @Override
    public String startsWith(String column, String literal) {
      return "startswith(" + column + ", " + literal + ")";
    }
  };

  private SparkFilters() {}

  /** {@code where} and {@code partition} (either may be null) as one expression; always-true when both are. */
  static Expression filter(Table table, String where, String partition) {
    return SqlFilters.filter(table, where, partition, "spark", "rewrite_data_files");
  }

  /** The Spark SQL predicate for {@code filter}; null when it selects everything. */
  static String sql(Table table, Expression filter) {
    return SqlFilters.sql(table, filter, SPARK);
  }

  /** A Spark SQL literal of an Iceberg value, typed so that Spark compares it to the column without a cast of the column. */
  static String value(Type type, Object v) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER -> v.toString();
      case LONG -> v + "L";
      case FLOAT -> Float.isFinite((Float) v) ? v + "F" : "CAST('" + v + "' AS FLOAT)";
      case DOUBLE -> Double.isFinite((Double) v) ? v + "D" : "CAST('" + v + "' AS DOUBLE)";
      case DECIMAL -> {
        Types.DecimalType d = (Types.DecimalType) type;
        yield "CAST(" + ((BigDecimal) v).toPlainString() + "BD AS DECIMAL(" + d.precision() + ","
            + d.scale() + "))";
      }
      case STRING -> SparkTable.string(v.toString());
      case DATE -> "DATE '" + LocalDate.ofEpochDay(((Number) v).longValue()) + "'";
      case TIMESTAMP -> {
        String t = SqlFilters.timestamp(((Number) v).longValue());
        yield ((Types.TimestampType) type).shouldAdjustToUTC()
            ? "TIMESTAMP '" + t + "Z'"
            : "TIMESTAMP_NTZ '" + t + "'";
      }
      case BINARY, FIXED -> "X'" + SqlFilters.hex((ByteBuffer) v) + "'";
      default ->
        throw new UsageException("--where with --engine spark: a " + type
            + " value has no Spark literal here; use --engine local");
    };
  }
}
