package dev.resurfacer.where;

import dev.resurfacer.UsageException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses the {@code --where} filter: comparisons joined by AND / OR, with parentheses.
 *
 * <pre>
 *   ts &gt;= '2026-10-01T00:00:00' AND category IN ('a', 'b') AND note IS NOT NULL
 * </pre>
 *
 * Operators: {@code = != <> < <= > >= IN, NOT IN, IS NULL, IS NOT NULL}. Literals: integers,
 * decimals, single-quoted strings (dates and timestamps are written as strings and converted by
 * each format when it binds the filter to a table's schema), {@code true}/{@code false}.
 */
public final class WhereParser {
  private final List<String> tokens;
  private int at;

  private WhereParser(List<String> tokens) {
    this.tokens = tokens;
  }

  public static Where parse(String text) {
    if (text == null || text.isBlank()) {
      return Where.ALL;
    }
    WhereParser p = new WhereParser(tokenize(text));
    Where e = p.or();
    if (p.at < p.tokens.size()) {
      throw new UsageException("--where: unexpected '" + p.tokens.get(p.at) + "' in: " + text);
    }
    return e;
  }

  private Where or() {
    Where left = and();
    while (peekKeyword("OR")) {
      at++;
      left = new Where.Or(left, and());
    }
    return left;
  }

  private Where and() {
    Where left = term();
    while (peekKeyword("AND")) {
      at++;
      left = new Where.And(left, term());
    }
    return left;
  }

  private Where term() {
    if (peek("(")) {
      at++;
      Where e = or();
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
      return new Where.IsNull(column, not);
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
      return new Where.In(column, values, not);
    }
    if (not) {
      throw new UsageException("--where: expected IN after NOT");
    }
    String op = next("an operator");
    Object value = literal();
    return new Where.Compare(
        column,
        switch (op) {
          case "=" -> Where.Op.EQ;
          case "!=", "<>" -> Where.Op.NOT_EQ;
          case "<" -> Where.Op.LT;
          case "<=" -> Where.Op.LT_EQ;
          case ">" -> Where.Op.GT;
          case ">=" -> Where.Op.GT_EQ;
          default -> throw new UsageException("--where: unknown operator '" + op + "'");
        },
        value);
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
      throw new UsageException(
          "--where: '" + t + "' is not a value (quote strings, dates and timestamps)");
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
      throw new UsageException("--where: expected '" + t + "'"
          + (at < tokens.size() ? " but found '" + tokens.get(at) + "'" : " at the end"));
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
        while (j < s.length()
            && !Character.isWhitespace(s.charAt(j))
            && "(),<>=!'".indexOf(s.charAt(j)) < 0) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
    }
    return out;
  }
}
