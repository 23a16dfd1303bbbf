package dev.resurfacer.scanreports;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HexFormat;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.NamedReference;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.expressions.UnboundTransform;

/**
 * An expression in the JSON form of Iceberg's {@code ExpressionParser} (which lives in iceberg-core,
 * not on the collector's class path): {@code true}, {@code {"type":"and","left":..,"right":..}},
 * {@code {"type":"lt","term":"ts","value":1700000000000000}}, {@code {"type":"in","term":"c","values":[..]}}.
 * Literals are written as Iceberg holds them: dates as days, times and timestamps as microseconds,
 * decimals as their plain text, binary as hex.
 */
final class ExpressionJson {
  private ExpressionJson() {}

  static void write(StringBuilder b, Expression e) {
    switch (e.op()) {
      case TRUE -> b.append("true");
      case FALSE -> b.append("false");
      case AND -> binary(b, "and", ((And) e).left(), ((And) e).right());
      case OR -> binary(b, "or", ((Or) e).left(), ((Or) e).right());
      case NOT -> {
        b.append("{\"type\":\"not\",\"child\":");
        write(b, ((Not) e).child());
        b.append('}');
      }
      default -> predicate(b, e);
    }
  }

  private static void binary(StringBuilder b, String type, Expression left, Expression right) {
    b.append("{\"type\":\"").append(type).append("\",\"left\":");
    write(b, left);
    b.append(",\"right\":");
    write(b, right);
    b.append('}');
  }

  private static void predicate(StringBuilder b, Expression e) {
    b.append("{\"type\":");
    JsonText.string(b, e.op().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    b.append(",\"term\":");
    if (e instanceof UnboundPredicate<?> p) {
      term(b, p.term());
      switch (e.op()) {
        case IN, NOT_IN -> values(b, p.literals());
        case IS_NULL, NOT_NULL, IS_NAN, NOT_NAN -> {}
        default -> {
          b.append(",\"value\":");
          literal(b, p.literal());
        }
      }
    } else if (e instanceof BoundPredicate<?> p) {
      JsonText.string(b, p.ref().name());
      if (p.isLiteralPredicate()) {
        b.append(",\"value\":");
        literal(b, p.asLiteralPredicate().literal());
      } else if (p.isSetPredicate()) {
        b.append(",\"values\":[");
        boolean first = true;
        for (Object v : p.asSetPredicate().literalSet()) {
          if (!first) {
            b.append(',');
          }
          first = false;
          value(b, v);
        }
        b.append(']');
      }
    } else {
      JsonText.string(b, e.toString());
    }
    b.append('}');
  }

  private static void term(StringBuilder b, Term t) {
    if (t instanceof NamedReference<?> r) {
      JsonText.string(b, r.name());
    } else if (t instanceof BoundReference<?> r) {
      JsonText.string(b, r.name());
    } else if (t instanceof UnboundTransform<?, ?> tr) {
      b.append("{\"type\":\"transform\",\"transform\":");
      JsonText.string(b, tr.transform().toString());
      b.append(",\"term\":");
      JsonText.string(b, tr.ref().name());
      b.append('}');
    } else {
      JsonText.string(b, t.toString());
    }
  }

  private static void values(StringBuilder b, Collection<? extends Literal<?>> literals) {
    b.append(",\"values\":[");
    boolean first = true;
    for (Literal<?> l : literals) {
      if (!first) {
        b.append(',');
      }
      first = false;
      literal(b, l);
    }
    b.append(']');
  }

  private static void literal(StringBuilder b, Literal<?> l) {
    value(b, l == null ? null : l.value());
  }

  private static void value(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Integer || v instanceof Long || v instanceof Boolean) {
      b.append(v);
    } else if ((v instanceof Double || v instanceof Float)
        && Double.isFinite(((Number) v).doubleValue())) {
      b.append(v);
    } else if (v instanceof BigDecimal d) {
      JsonText.string(b, d.toPlainString());
    } else if (v instanceof ByteBuffer buf) {
      ByteBuffer dup = buf.duplicate();
      byte[] bytes = new byte[dup.remaining()];
      dup.get(bytes);
      JsonText.string(b, HexFormat.of().formatHex(bytes));
    } else {
      JsonText.string(b, v.toString());
    }
  }
}
