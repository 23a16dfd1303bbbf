package dev.resurfacer.iceberg.filter;

import dev.resurfacer.where.Where;
import dev.resurfacer.where.WhereParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The {@code --where} filter as an Iceberg expression: the grammar is core's ({@link WhereParser});
 * dates and timestamps written as strings are converted by Iceberg when the expression is bound to the
 * table's schema.
 */
public final class FilterParser {
  private FilterParser() {}

  public static Expression parse(String text) {
    return expression(WhereParser.parse(text));
  }

  public static Expression expression(Where where) {
    if (where instanceof Where.And a) {
      return Expressions.and(expression(a.left()), expression(a.right()));
    }
    if (where instanceof Where.Or o) {
      return Expressions.or(expression(o.left()), expression(o.right()));
    }
    if (where instanceof Where.IsNull n) {
      return n.negated() ? Expressions.notNull(n.column()) : Expressions.isNull(n.column());
    }
    if (where instanceof Where.In in) {
      return in.negated()
          ? Expressions.notIn(in.column(), in.literals().toArray())
          : Expressions.in(in.column(), in.literals().toArray());
    }
    if (where instanceof Where.Compare c) {
      return switch (c.op()) {
        case EQ -> Expressions.equal(c.column(), c.literal());
        case NOT_EQ -> Expressions.notEqual(c.column(), c.literal());
        case LT -> Expressions.lessThan(c.column(), c.literal());
        case LT_EQ -> Expressions.lessThanOrEqual(c.column(), c.literal());
        case GT -> Expressions.greaterThan(c.column(), c.literal());
        case GT_EQ -> Expressions.greaterThanOrEqual(c.column(), c.literal());
      };
    }
    return Expressions.alwaysTrue();
  }
}
