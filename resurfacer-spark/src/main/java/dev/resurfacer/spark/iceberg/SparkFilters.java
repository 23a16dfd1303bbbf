package dev.resurfacer.spark.iceberg;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.filter.FilterParser;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Our {@code --where} filter and {@code --partition} path for Spark's {@code rewrite_data_files}:
 * one Iceberg expression (the partition path as equalities on the identity fields' source columns),
 * which our preview plans with, and the same expression as Spark SQL text for the procedure's
 * {@code where} argument, literals typed from the table's schema, so user text never reaches Spark as
 * SQL. Spark converts that text back to the same Iceberg expression and plans with the same core
 * planner, which is why the preview names the files Spark rewrites.
 */
final class SparkFilters {
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  private SparkFilters() {}

  /** {@code where} and {@code partition} (either may be null) as one expression; always-true when both are. */
  static Expression filter(Table table, String where, String partition) {
    Expression filter = where == null || where.isBlank() ? Expressions.alwaysTrue() : FilterParser.parse(where);
    if (partition != null && !partition.isBlank()) {
      filter = Expressions.and(filter, partition(table, partition));
    }
    return filter;
  }

  /** The Spark SQL predicate for {@code filter}; null when it selects everything. */
  static String sql(Table table, Expression filter) {
    if (filter.op() == Expression.Operation.TRUE) {
      return null;
    }
    return ExpressionVisitors.visit(Binder.bind(table.schema().asStruct(), filter, true), new ToSql());
  }

  /**
   * {@code name=value/name=value}: each an identity field of the current spec, compared to its source
   * column; a transformed field (day, bucket, truncate) has no column value to compare, so it is
   * refused in favour of {@code --where} on the source column.
   */
  private static Expression partition(Table table, String path) {
    Expression out = Expressions.alwaysTrue();
    for (String segment : path.split("/")) {
      int eq = segment.indexOf('=');
      if (eq < 1) {
        throw new UsageException("--partition: expected name=value, got '" + segment + "'");
      }
      String name = segment.substring(0, eq);
      String text = segment.substring(eq + 1);
      PartitionField field = table.spec().fields().stream().filter(f -> f.name().equals(name)).findFirst()
          .orElseThrow(() -> new UsageException("--partition: " + table.name() + " has no partition field " + name));
      String column = table.schema().findColumnName(field.sourceId());
      if (!field.transform().isIdentity()) {
        throw new UsageException("--partition " + name + " with --engine spark: " + name + " is " + field.transform()
            + " of a column, which rewrite_data_files cannot select by; use --where on " + column);
      }
      if ("null".equals(text)) {
        out = Expressions.and(out, Expressions.isNull(column));
        continue;
      }
      Type type = table.schema().findType(field.sourceId());
      Literal<?> typed = Literal.of(text).to(type);
      if (typed == null) {
        throw new UsageException("--partition: '" + text + "' is not a " + type + " for " + name);
      }
      out = Expressions.and(out, Expressions.equal(column, typed.value()));
    }
    return out;
  }

  /** Renders a bound expression; values arrive in Iceberg's internal representation. */
  private static final class ToSql extends ExpressionVisitors.BoundExpressionVisitor<String> {
    @Override
    public String alwaysTrue() {
      return "true";
    }

    @Override
    public String alwaysFalse() {
      return "false";
    }

    @Override
    public String not(String result) {
      return "(NOT " + result + ")";
    }

    @Override
    public String and(String left, String right) {
      return "(" + left + " AND " + right + ")";
    }

    @Override
    public String or(String left, String right) {
      return "(" + left + " OR " + right + ")";
    }

    @Override
    public <T> String isNull(BoundReference<T> ref) {
      return column(ref) + " IS NULL";
    }

    @Override
    public <T> String notNull(BoundReference<T> ref) {
      return column(ref) + " IS NOT NULL";
    }

    @Override
    public <T> String isNaN(BoundReference<T> ref) {
      return "isnan(" + column(ref) + ")";
    }

    @Override
    public <T> String notNaN(BoundReference<T> ref) {
      return "(NOT isnan(" + column(ref) + "))";
    }

    @Override
    public <T> String lt(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " < ", lit);
    }

    @Override
    public <T> String ltEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " <= ", lit);
    }

    @Override
    public <T> String gt(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " > ", lit);
    }

    @Override
    public <T> String gtEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " >= ", lit);
    }

    @Override
    public <T> String eq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " = ", lit);
    }

    @Override
    public <T> String notEq(BoundReference<T> ref, Literal<T> lit) {
      return compare(ref, " <> ", lit);
    }

    @Override
    public <T> String in(BoundReference<T> ref, Set<T> literals) {
      return column(ref) + " IN (" + values(ref, literals) + ")";
    }

    @Override
    public <T> String notIn(BoundReference<T> ref, Set<T> literals) {
      return column(ref) + " NOT IN (" + values(ref, literals) + ")";
    }

    @Override
    public <T> String startsWith(BoundReference<T> ref, Literal<T> lit) {
      return "startswith(" + column(ref) + ", " + value(ref.type(), lit.value()) + ")";
    }

    @Override
    public <T> String notStartsWith(BoundReference<T> ref, Literal<T> lit) {
      return "(NOT startswith(" + column(ref) + ", " + value(ref.type(), lit.value()) + "))";
    }

    private static <T> String compare(BoundReference<T> ref, String operator, Literal<T> lit) {
      return column(ref) + operator + value(ref.type(), lit.value());
    }

    private static <T> String values(BoundReference<T> ref, Set<T> literals) {
      return literals.stream().map(v -> value(ref.type(), v)).sorted().collect(Collectors.joining(", "));
    }

    /** A nested column as {@code `a`.`b`}. */
    private static String column(BoundReference<?> ref) {
      List<String> parts = new ArrayList<>();
      for (String part : ref.name().split("\\.")) {
        parts.add(SparkTable.quote(part));
      }
      return String.join(".", parts);
    }
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
        yield "CAST(" + ((BigDecimal) v).toPlainString() + "BD AS DECIMAL(" + d.precision() + "," + d.scale() + "))";
      }
      case STRING -> SparkTable.string(v.toString());
      case DATE -> "DATE '" + LocalDate.ofEpochDay(((Number) v).longValue()) + "'";
      case TIMESTAMP -> {
        long micros = ((Number) v).longValue();
        String t = TIMESTAMP.format(LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
            (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC));
        yield ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMP '" + t + "Z'" : "TIMESTAMP_NTZ '" + t + "'";
      }
      case BINARY, FIXED -> "X'" + HexFormat.of().formatHex(bytes((ByteBuffer) v)) + "'";
      default -> throw new UsageException("--where with --engine spark: a " + type + " value has no Spark literal here; use --engine local");
    };
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
