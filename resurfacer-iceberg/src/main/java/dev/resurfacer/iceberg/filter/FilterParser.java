package dev.resurfacer.iceberg.filter;

import dev.resurfacer.UsageException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Parses the {@code --where} filter: comparisons joined by AND / OR, with parentheses.
 *
 * <pre>
 *   ts &gt;= '2026-10-01T00:00:00' AND category IN ('a', 'b') AND note IS NOT NULL
 * </pre>
 *
 * Operators: {@code = != <> < <= > >= IN, NOT IN, IS NULL, IS NOT NULL}. Literals: integers,
 * decimals, single-quoted strings (dates and timestamps are written as strings and converted by
 * Iceberg when the filter is bound to the table's schema), {@code true}/{@code false}.
 */
public final class FilterParser {
  private final List<String> tokens;
  private int at;

  private FilterParser(List<String> tokens) {
    this.tokens = tokens;
  }

  public static Expression parse(String text) {
    if (text == null || text.isBlank()) {
      return Expressions.alwaysTrue();
    }
    FilterParser p = new FilterParser(tokenize(text));
    Expression e = p.or();
    if (p.at < p.tokens.size()) {
      throw new UsageException("--where: unexpected '" + p.tokens.get(p.at) + "' in: " + text);
    }
    return e;
  }

  private Expression or() {
    Expression left = and();
    while (peekKeyword("OR")) {
      at++;
      left = Expressions.or(left, and());
    }
    return left;
  }

  private Expression and() {
    Expression left = term();
    while (peekKeyword("AND")) {
      at++;
      left = Expressions.and(left, term());
    }
    return left;
  }

  private Expression term() {
    if (peek("(")) {
      at++;
      Expression e = or();
      expect(")");
      return e;
    }
    String column = next("a column name");
    if (peekKeyword("IS")) {
      at++;
      boolean not = peekKeyword("NOT");
      if (not) {
        at++;
      }
      expectKeyword("NULL");
      return not ? Expressions.notNull(column) : Expressions.isNull(column);
    }
    boolean not = peekKeyword("NOT");
    if (not) {
      at++;
    }
    if (peekKeyword("IN")) {
      at++;
      expect("(");
      List<Object> values = new ArrayList<>();
      values.add(literal());
      while (peek(",")) {
        at++;
        values.add(literal());
      }
      expect(")");
      return not ? Expressions.notIn(column, values.toArray()) : Expressions.in(column, values.toArray());
    }
    if (not) {
      throw new UsageException("--where: expected IN after NOT");
    }
    String op = next("an operator");
    Object value = literal();
    return switch (op) {
      case "=" -> Expressions.equal(column, value);
      case "!=", "<>" -> Expressions.notEqual(column, value);
      case "<" -> Expressions.lessThan(column, value);
      case "<=" -> Expressions.lessThanOrEqual(column, value);
      case ">" -> Expressions.greaterThan(column, value);
      case ">=" -> Expressions.greaterThanOrEqual(column, value);
      default -> throw new UsageException("--where: unknown operator '" + op + "'");
    };
  }

  private Object literal() {
    String t = next("a value");
    if (t.startsWith("'")) {
      return t.substring(1, t.length() - 1).replace("''", "'");
    }
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.equals("true") || lower.equals("false")) {
      return Boolean.parseBoolean(lower);
    }
    try {
      if (t.contains(".") || lower.contains("e")) {
        return new BigDecimal(t);
      }
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new UsageException("--where: '" + t + "' is not a value (quote strings, dates and timestamps)");
    }
  }

  private boolean peek(String t) {
    return at < tokens.size() && tokens.get(at).equals(t);
  }

  private boolean peekKeyword(String k) {
    return at < tokens.size() && tokens.get(at).equalsIgnoreCase(k);
  }

  private void expect(String t) {
    if (!peek(t)) {
      throw new UsageException("--where: expected '" + t + "'" + (at < tokens.size() ? " but found '" + tokens.get(at) + "'" : " at the end"));
    }
    at++;
  }

  private void expectKeyword(String k) {
    if (!peekKeyword(k)) {
      throw new UsageException("--where: expected " + k);
    }
    at++;
  }

  private String next(String what) {
    if (at >= tokens.size()) {
      throw new UsageException("--where: expected " + what + " at the end");
    }
    return tokens.get(at++);
  }

  private static List<String> tokenize(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'') {
        int j = i + 1;
        while (true) {
          if (j >= s.length()) {
            throw new UsageException("--where: unterminated string in: " + s);
          }
          if (s.charAt(j) == '\'') {
            if (j + 1 < s.length() && s.charAt(j + 1) == '\'') {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        out.add(s.substring(i, j + 1));
        i = j + 1;
      } else if ("(),".indexOf(c) >= 0) {
        out.add(String.valueOf(c));
        i++;
      } else if ("<>=!".indexOf(c) >= 0) {
        int j = i + 1;
        if (j < s.length() && (s.charAt(j) == '=' || (c == '<' && s.charAt(j) == '>'))) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else {
        int j = i;
        while (j < s.length() && !Character.isWhitespace(s.charAt(j)) && "(),<>=!'".indexOf(s.charAt(j)) < 0) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
    }
    return out;
  }
}
