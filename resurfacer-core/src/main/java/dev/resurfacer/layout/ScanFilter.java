package dev.resurfacer.layout;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A recorded scan's filter, read from the JSON form of Iceberg's {@code ExpressionParser}. A literal
 * Iceberg sanitized away ("(5-digit-int)") is {@code null}: the simulation then draws a value from
 * the sampled rows for equality and IN, and cannot prune on a range.
 */
public sealed interface ScanFilter {
  enum Op {
    EQ,
    LT,
    LT_EQ,
    GT,
    GT_EQ
  }

  record All() implements ScanFilter {}

  record None() implements ScanFilter {}

  record And(ScanFilter left, ScanFilter right) implements ScanFilter {}

  record Or(ScanFilter left, ScanFilter right) implements ScanFilter {}

  /** Anything a min/max range cannot prune on (not, not-equal, starts-with, is-null, transforms): may match any file. */
  record Opaque(String column) implements ScanFilter {}

  /** @param value a JSON scalar (Long, Double, String, Boolean), null when sanitized */
  record Compare(String column, Op op, Object value) implements ScanFilter {}

  /** @param values the values, each null when sanitized */
  record In(String column, List<Object> values) implements ScanFilter {
    public In {
      values = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(values));
    }
  }

  /** The columns a predicate names (Opaque ones included: a filtered column is a filtered column). */
  default Set<String> columns() {
    Set<String> out = new TreeSet<>();
    collect(this, out, true);
    return out;
  }

  /** The columns a predicate restricts with a range or equality (what a layout can help). */
  default Set<String> prunableColumns() {
    Set<String> out = new TreeSet<>();
    collect(this, out, false);
    return out;
  }

  private static void collect(ScanFilter f, Set<String> out, boolean opaque) {
    if (f instanceof And a) {
      collect(a.left(), out, opaque);
      collect(a.right(), out, opaque);
    } else if (f instanceof Or o) {
      collect(o.left(), out, opaque);
      collect(o.right(), out, opaque);
    } else if (f instanceof Opaque p && p.column() != null && opaque) {
      out.add(p.column());
    } else if (f instanceof Compare c) {
      out.add(c.column());
    } else if (f instanceof In i) {
      out.add(i.column());
    }
  }

  /** "eq", "range", "in", "other": how a predicate uses a column, for advise's column table. */
  default String kindOf(String column) {
    return kind(this, column);
  }

  private static String kind(ScanFilter f, String column) {
    if (f instanceof And a) {
      return merge(kind(a.left(), column), kind(a.right(), column));
    } else if (f instanceof Or o) {
      return merge(kind(o.left(), column), kind(o.right(), column));
    } else if (f instanceof Compare c) {
      return c.column().equals(column) ? (c.op() == Op.EQ ? "eq" : "range") : null;
    } else if (f instanceof In i) {
      return i.column().equals(column) ? "in" : null;
    } else if (f instanceof Opaque p) {
      return column.equals(p.column()) ? "other" : null;
    }
    return null;
  }

  /** The most selective use wins: eq, then in, then range, then other (a not-null beside an equality is an equality). */
  private static String merge(String a, String b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    for (String k : new String[] {"eq", "in", "range"}) {
      if (k.equals(a) || k.equals(b)) {
        return k;
      }
    }
    return a;
  }
}
