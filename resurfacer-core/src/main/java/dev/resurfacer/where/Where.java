package dev.resurfacer.where;

import java.util.List;

/**
 * A parsed {@code --where} filter, before any format binds it: comparisons joined by AND / OR. Each
 * format evaluates it its own way (Iceberg binds it to an expression over the table's schema, Delta
 * decides it on each file's partition values), so the grammar and its errors are the same for both.
 * Literals are {@link String}, {@link Long}, {@link java.math.BigDecimal} or {@link Boolean}.
 */
public sealed interface Where {
  /** What a blank filter means: every row. */
  Where ALL = new All();

  record All() implements Where {}

  record And(Where left, Where right) implements Where {}

  record Or(Where left, Where right) implements Where {}

  /** {@code column IS NULL}, or {@code IS NOT NULL} when {@code negated}. */
  record IsNull(String column, boolean negated) implements Where {}

  record Compare(String column, Op op, Object literal) implements Where {}

  /** {@code column IN (...)}, or {@code NOT IN} when {@code negated}. */
  record In(String column, List<Object> literals, boolean negated) implements Where {
    public In {
      literals = List.copyOf(literals);
    }
  }

  enum Op {
    EQ,
    NOT_EQ,
    LT,
    LT_EQ,
    GT,
    GT_EQ
  }
}
