package dev.resurfacer.delta.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.where.Where;
import dev.resurfacer.where.WhereParser;
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

/**
 * {@code --where} for Delta tables: the grammar every format shares ({@link WhereParser}),
 * limited to partition columns and decided exactly on each file's partition values, with SQL's
 * three-valued logic (a comparison with a null partition value is unknown, and unknown selects nothing).
 */
public final class DeltaWhere {
  private DeltaWhere() {}

  public static PartitionFilter parse(
      String text, StructType schema, List<String> partitionColumns) {
    if (text == null || text.isBlank()) {
      return PartitionFilter.ALL;
    }
    Node node = node(WhereParser.parse(text), schema, partitionColumns);
    return new PartitionFilter(text, values -> Boolean.TRUE.equals(node.eval(values)));
  }

  @FunctionalInterface
  private interface Node {
    /** true, false, or null for unknown. */
    Boolean eval(Map<String, String> partitionValues);
  }

  private static Node node(Where e, StructType schema, List<String> partitionColumns) {
    if (e instanceof Where.And a) {
      return junction(
          node(a.left(), schema, partitionColumns),
          node(a.right(), schema, partitionColumns),
          false);
    }
    if (e instanceof Where.Or o) {
      return junction(
          node(o.left(), schema, partitionColumns),
          node(o.right(), schema, partitionColumns),
          true);
    }
    if (e instanceof Where.All) {
      return v -> true;
    }
    String column = e instanceof Where.IsNull n
        ? n.column()
        : e instanceof Where.In in ? in.column() : ((Where.Compare) e).column();
    if (!partitionColumns.contains(column)) {
      throw new UsageException("--where on a Delta table names partition columns only ("
          + (partitionColumns.isEmpty()
              ? "the table has none"
              : String.join(", ", partitionColumns))
          + "); " + column + " is not one");
    }
    DataType type = schema.get(column).getDataType();
    if (e instanceof Where.IsNull n) {
      return n.negated() ? v -> v.get(column) != null : v -> v.get(column) == null;
    }
    if (e instanceof Where.In in) {
      List<Object> literals = in.literals();
      boolean wanted = !in.negated();
      return v -> {
        String value = v.get(column);
        if (value == null) {
          return null;
        }
        boolean found = literals.stream().anyMatch(l -> compare(type, column, value, l) == 0);
        return wanted == found;
      };
    }
    Where.Compare c = (Where.Compare) e;
    Object literal = c.literal();
    Where.Op op = c.op();
    return v -> {
      String value = v.get(column);
      if (value == null) {
        return null;
      }
      int cmp = compare(type, column, value, literal);
      return switch (op) {
        case EQ -> cmp == 0;
        case NOT_EQ -> cmp != 0;
        case LT -> cmp < 0;
        case LT_EQ -> cmp <= 0;
        case GT -> cmp > 0;
        case GT_EQ -> cmp >= 0;
      };
    };
  }

  /**
   * AND ({@code decisive} false) or OR ({@code decisive} true) in three-valued logic: either side equal to
   * {@code decisive} decides; otherwise unknown if either side is, else the other value.
   */
  private static Node junction(Node l, Node r, boolean decisive) {
    return v -> {
      Boolean x = l.eval(v), y = r.eval(v);
      if (Boolean.valueOf(decisive).equals(x) || Boolean.valueOf(decisive).equals(y)) {
        return decisive;
      }
      return x == null || y == null ? null : !decisive;
    };
  }

  /** The partition value (as the log writes it) against a literal, in the column's type. */
  private static int compare(DataType type, String column, String value, Object literal) {
    try {
      if (type instanceof StringType) {
        return value.compareTo(literal.toString());
      }
      if (type instanceof IntegerType
          || type instanceof LongType
          || type instanceof ShortType
          || type instanceof ByteType) {
        return new BigDecimal(value).compareTo(new BigDecimal(literal.toString()));
      }
      if (type instanceof DateType) {
        return LocalDate.parse(value).compareTo(LocalDate.parse(literal.toString()));
      }
      if (type instanceof BooleanType) {
        return Boolean.compare(
            Boolean.parseBoolean(value), Boolean.parseBoolean(literal.toString()));
      }
    } catch (RuntimeException e) {
      throw new UsageException(
          "--where: '" + literal + "' is not a value of " + column + " (" + type + ")");
    }
    throw new UsageException("--where: partition column " + column + " has type " + type
        + "; --where on Delta tables compares string, integer, date and boolean partition columns");
  }
}
