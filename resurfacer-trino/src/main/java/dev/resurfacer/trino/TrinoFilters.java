package dev.resurfacer.trino;

import static dev.resurfacer.trino.TrinoTableName.literal;
import static dev.resurfacer.trino.TrinoTableName.quote;

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
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Our {@code --where} filter and {@code --partition} path as a Trino {@code WHERE} clause, with
 * literals typed from the table's schema (dates and timestamps as Trino date/timestamp literals), so
 * user text never reaches Trino as SQL. Trino's optimize accepts only predicates it can enforce by
 * partition, which {@link TrinoFailures} reports as such.
 */
final class TrinoFilters {
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  private TrinoFilters() {}

  /** The SQL predicate for {@code where} and {@code partition} (either may be null); null when both are. */
  static String where(Table table, String where, String partition) {
    List<String> parts = new ArrayList<>();
    if (where != null && !where.isBlank()) {
      Expression bound = Binder.bind(table.schema().asStruct(), FilterParser.parse(where), true);
      parts.add(sql(bound));
    }
    if (partition != null && !partition.isBlank()) {
      parts.add(partition(table, partition));
    }
    return parts.isEmpty() ? null : String.join(" AND ", parts);
  }

  private static String sql(Expression e) {
    return switch (e.op()) {
      case TRUE -> "true";
      case FALSE -> "false";
      case AND -> "(" + sql(((And) e).left()) + " AND " + sql(((And) e).right()) + ")";
      case OR -> "(" + sql(((Or) e).left()) + " OR " + sql(((Or) e).right()) + ")";
      case NOT -> "(NOT " + sql(((Not) e).child()) + ")";
      default -> predicate((BoundPredicate<?>) e);
    };
  }

  private static String predicate(BoundPredicate<?> p) {
    Types.NestedField field = p.ref().field();
    String column = quote(field.name());
    Type type = field.type();
    if (p.isUnaryPredicate()) {
      return column + (p.op() == Expression.Operation.IS_NULL ? " IS NULL" : " IS NOT NULL");
    }
    if (p.isSetPredicate()) {
      String values = p.asSetPredicate().literalSet().stream().map(v -> value(type, v)).sorted().collect(Collectors.joining(", "));
      return column + (p.op() == Expression.Operation.IN ? " IN (" : " NOT IN (") + values + ")";
    }
    String operator = switch (p.op()) {
      case LT -> " < ";
      case LT_EQ -> " <= ";
      case GT -> " > ";
      case GT_EQ -> " >= ";
      case EQ -> " = ";
      case NOT_EQ -> " <> ";
      default -> throw new UsageException("--where with --engine trino: " + p.op() + " has no Trino form here");
    };
    return column + operator + value(type, p.asLiteralPredicate().literal().value());
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
      case TIMESTAMP -> {
        long micros = ((Number) v).longValue();
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
            (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
        yield "TIMESTAMP '" + TIMESTAMP.format(t) + (((Types.TimestampType) type).shouldAdjustToUTC() ? " UTC'" : "'");
      }
      case BINARY, FIXED -> "X'" + HexFormat.of().formatHex(bytes((ByteBuffer) v)) + "'";
      default -> throw new UsageException("--where with --engine trino: a " + type + " literal has no Trino form here");
    };
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /**
   * {@code name=value/name=value}: each an identity partition field of the current spec, compared
   * to its source column. A transformed field (day, bucket, truncate) has no column to compare, so
   * it is refused in favour of {@code --where}.
   */
  private static String partition(Table table, String path) {
    List<String> parts = new ArrayList<>();
    for (String segment : path.split("/")) {
      int eq = segment.indexOf('=');
      if (eq < 1) {
        throw new UsageException("--partition: expected name=value, got '" + segment + "'");
      }
      String name = segment.substring(0, eq);
      String text = segment.substring(eq + 1);
      PartitionField field = table.spec().fields().stream().filter(f -> f.name().equals(name)).findFirst()
          .orElseThrow(() -> new UsageException("--partition: " + table.name() + " has no partition field " + name));
      if (!field.transform().isIdentity()) {
        throw new UsageException("--partition " + name + " with --engine trino: Trino's optimize filters by column values and "
            + name + " is " + field.transform() + " of a column; use --where on " + table.schema().findColumnName(field.sourceId()));
      }
      Types.NestedField source = table.schema().findField(field.sourceId());
      if ("null".equals(text)) {
        parts.add(quote(source.name()) + " IS NULL");
        continue;
      }
      Literal<?> typed = Literal.of(text).to(source.type());
      if (typed == null) {
        throw new UsageException("--partition: '" + text + "' is not a " + source.type() + " for " + name);
      }
      parts.add(quote(source.name()) + " = " + value(source.type(), typed.value()));
    }
    return String.join(" AND ", parts);
  }
}
