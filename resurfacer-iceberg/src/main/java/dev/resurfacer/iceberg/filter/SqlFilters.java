package dev.resurfacer.iceberg.filter;

import dev.resurfacer.UsageException;
import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;

/**
 * Our {@code --where} filter and {@code --partition} path for an engine that takes a SQL predicate
 * (Spark's {@code rewrite_data_files}, Trino's {@code optimize}): one Iceberg expression, rendered in
 * the engine's SQL with every literal typed from the table's schema, so user text never reaches the
 * engine as SQL.
 */
public final class SqlFilters {
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  private SqlFilters() {}

  /** How one engine's SQL names a column and writes a value. */
  public interface Dialect {
    /** The engine as {@code --engine} names it, for messages. */
    String engine();

    /** A column by its name parts (a nested field has several), quoted. */
    String column(List<String> parts);

    /** A literal of {@code type} from Iceberg's internal representation of the value. */
    String literal(Type type, Object value);

    default String isNaN(String column) {
      throw unsupported("is_nan");
    }

    default String startsWith(String column, String literal) {
      throw unsupported("starts_with");
    }

    default UsageException unsupported(String what) {
      return new UsageException(
          "--where with --engine " + engine() + ": " + what + " has no " + engine() + " form here");
    }
  }

  /**
   * {@code where} and {@code partition} (either may be null) as one expression; always-true when both
   * are.
   *
   * @param procedure what selects the rows on the engine, for the refusal of a transformed partition field
   */
  public static Expression filter(
      Table table, String where, String partition, String engine, String procedure) {
    Expression filter =
        where == null || where.isBlank() ? Expressions.alwaysTrue() : FilterParser.parse(where);
    if (partition != null && !partition.isBlank()) {
      filter = Expressions.and(filter, partition(table, partition, engine, procedure));
    }
    return filter;
  }

  /** The predicate for {@code filter} in the dialect's SQL; null when it selects everything. */
  public static String sql(Table table, Expression filter, Dialect dialect) {
    if (filter.op() == Expression.Operation.TRUE) {
      return null;
    }
    return ExpressionVisitors.visit(
        Binder.bind(table.schema().asStruct(), filter, true), new ToSql(dialect));
  }

  /** A timestamp of microseconds since the epoch as {@code yyyy-MM-dd HH:mm:ss.SSSSSS}, in UTC. */
  public static String timestamp(long micros) {
    return TIMESTAMP.format(LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000,
        ZoneOffset.UTC));
  }

  /** The bytes of a binary value as hex digits. */
  public static String hex(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return HexFormat.of().formatHex(out);
  }

  /**
   * {@code name=value/name=value}: each an identity field of the current spec, compared to its source
   * column; a transformed field (day, bucket, truncate) has no column value to compare, so it is
   * refused in favour of {@code --where} on the source column.
   */
  private static Expression partition(Table table, String path, String engine, String procedure) {
    Expression out = Expressions.alwaysTrue();
    for (String segment : path.split("/")) {
      int eq = segment.indexOf('=');
      if (eq < 1) {
        throw new UsageException("--partition: expected name=value, got '" + segment + "'");
      }
      String name = segment.substring(0, eq);
      String text = segment.substring(eq + 1);
      PartitionField field = table.spec().fields().stream()
          .filter(f -> f.name().equals(name))
          .findFirst()
          .orElseThrow(() -> new UsageException(
              "--partition: " + table.name() + " has no partition field " + name));
      String column = table.schema().findColumnName(field.sourceId());
      if (!field.transform().isIdentity()) {
        throw new UsageException("--partition " + name + " with --engine " + engine + ": " + name
            + " is " + field.transform() + " of a column, which " + procedure
            + " cannot select by; use --where on " + column);
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
    private static final Map<Expression.Operation, String> COMPARISONS = Map.of(
        Expression.Operation.LT,
        " < ",
        Expression.Operation.LT_EQ,
        " <= ",
        Expression.Operation.GT,
        " > ",
        Expression.Operation.GT_EQ,
        " >= ",
        Expression.Operation.EQ,
        " = ",
        Expression.Operation.NOT_EQ,
        " <> ");

    private final Dialect dialect;

    ToSql(Dialect dialect) {
      this.dialect = dialect;
    }

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
      return dialect.isNaN(column(ref));
    }

    @Override
    public <T> String notNaN(BoundReference<T> ref) {
      return "(NOT " + dialect.isNaN(column(ref)) + ")";
    }

    // the six comparisons differ only in their operator: rendered here, before the visitor's
    // per-operation dispatch
    @Override
    public <T> String predicate(BoundPredicate<T> pred) {
      String operator = pred.isLiteralPredicate() ? COMPARISONS.get(pred.op()) : null;
      if (operator != null && pred.term() instanceof BoundReference<T> ref) {
        return column(ref)
            + operator
            + dialect.literal(ref.type(), pred.asLiteralPredicate().literal().value());
      }
      return super.predicate(pred);
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
      return dialect.startsWith(column(ref), dialect.literal(ref.type(), lit.value()));
    }

    @Override
    public <T> String notStartsWith(BoundReference<T> ref, Literal<T> lit) {
      return "(NOT " + startsWith(ref, lit) + ")";
    }

    private <T> String values(BoundReference<T> ref, Set<T> literals) {
      return literals.stream()
          .map(v -> dialect.literal(ref.type(), v))
          .sorted()
          .collect(Collectors.joining(", "));
    }

    private String column(BoundReference<?> ref) {
      return dialect.column(List.of(ref.name().split("\\.")));
    }
  }
}
