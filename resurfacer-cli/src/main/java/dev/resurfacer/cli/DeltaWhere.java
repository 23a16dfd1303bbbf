package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.compact.PartitionFilter;
import dev.resurfacer.iceberg.filter.FilterParser;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundPredicate;

/**
 * {@code --where} for Delta tables: the same grammar as for Iceberg tables ({@link FilterParser}),
 * limited to partition columns and decided exactly on each file's partition values, with SQL's
 * three-valued logic (a comparison with a null partition value is unknown, and unknown selects nothing).
 */
final class DeltaWhere {
  private DeltaWhere() {}

  static PartitionFilter parse(String text, StructType schema, List<String> partitionColumns) {
    if (text == null || text.isBlank()) {
      return PartitionFilter.ALL;
    }
    Expression e = FilterParser.parse(text);
    Node node = node(e, schema, partitionColumns);
    return new PartitionFilter(text, values -> Boolean.TRUE.equals(node.eval(values)));
  }

  @FunctionalInterface
  private interface Node {
    /** true, false, or null for unknown. */
    Boolean eval(Map<String, String> partitionValues);
  }

  private static Node node(Expression e, StructType schema, List<String> partitionColumns) {
    if (e instanceof And a) {
      Node l = node(a.left(), schema, partitionColumns), r = node(a.right(), schema, partitionColumns);
      return v -> {
        Boolean x = l.eval(v), y = r.eval(v);
        if (Boolean.FALSE.equals(x) || Boolean.FALSE.equals(y)) {
          return false;
        }
        return x == null || y == null ? null : true;
      };
    }
    if (e instanceof Or o) {
      Node l = node(o.left(), schema, partitionColumns), r = node(o.right(), schema, partitionColumns);
      return v -> {
        Boolean x = l.eval(v), y = r.eval(v);
        if (Boolean.TRUE.equals(x) || Boolean.TRUE.equals(y)) {
          return true;
        }
        return x == null || y == null ? null : false;
      };
    }
    if (e instanceof Not n) {
      Node c = node(n.child(), schema, partitionColumns);
      return v -> {
        Boolean x = c.eval(v);
        return x == null ? null : !x;
      };
    }
    if (e.op() == Expression.Operation.TRUE) {
      return v -> true;
    }
    if (e.op() == Expression.Operation.FALSE) {
      return v -> false;
    }
    if (!(e instanceof UnboundPredicate<?> p)) {
      throw new UsageException("--where: unsupported expression for a Delta table: " + e);
    }
    String column = p.ref().name();
    if (!partitionColumns.contains(column)) {
      throw new UsageException("--where on a Delta table names partition columns only ("
          + (partitionColumns.isEmpty() ? "the table has none" : String.join(", ", partitionColumns)) + "); " + column + " is not one");
    }
    DataType type = schema.get(column).getDataType();
    return switch (p.op()) {
      case IS_NULL -> v -> v.get(column) == null;
      case NOT_NULL -> v -> v.get(column) != null;
      case EQ, NOT_EQ, LT, LT_EQ, GT, GT_EQ -> {
        Object literal = p.literal().value();
        Expression.Operation op = p.op();
        yield v -> {
          String value = v.get(column);
          if (value == null) {
            return null;
          }
          int c = compare(type, column, value, literal);
          return switch (op) {
            case EQ -> c == 0;
            case NOT_EQ -> c != 0;
            case LT -> c < 0;
            case LT_EQ -> c <= 0;
            case GT -> c > 0;
            default -> c >= 0;
          };
        };
      }
      case IN, NOT_IN -> {
        List<Object> literals = p.literals().stream().map(l -> (Object) ((Literal<?>) l).value()).toList();
        boolean in = p.op() == Expression.Operation.IN;
        yield v -> {
          String value = v.get(column);
          if (value == null) {
            return null;
          }
          boolean found = literals.stream().anyMatch(l -> compare(type, column, value, l) == 0);
          return in == found;
        };
      }
      default -> throw new UsageException("--where: operator " + p.op() + " is not supported for Delta tables");
    };
  }

  /** The partition value (as the log writes it) against a literal, in the column's type. */
  private static int compare(DataType type, String column, String value, Object literal) {
    try {
      if (type instanceof StringType) {
        return value.compareTo(literal.toString());
      }
      if (type instanceof IntegerType || type instanceof LongType || type instanceof ShortType || type instanceof ByteType) {
        return new BigDecimal(value).compareTo(new BigDecimal(literal.toString()));
      }
      if (type instanceof DateType) {
        return LocalDate.parse(value).compareTo(LocalDate.parse(literal.toString()));
      }
      if (type instanceof BooleanType) {
        return Boolean.compare(Boolean.parseBoolean(value), Boolean.parseBoolean(literal.toString()));
      }
    } catch (RuntimeException e) {
      throw new UsageException("--where: '" + literal + "' is not a value of " + column + " (" + type + ")");
    }
    throw new UsageException("--where: partition column " + column + " has type " + type
        + "; --where on Delta tables compares string, integer, date and boolean partition columns");
  }
}
