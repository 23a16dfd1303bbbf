package dev.resurfacer.names;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * The one quoting rule for names of tables, namespaces and columns (docs/user-guide.md, "Names"): a
 * name is its parts joined by {@code .}; a part is written as it is, or in backticks as Spark writes
 * it ({@code `a.b`}, a backtick inside doubled: {@code `a``b`}), or in double quotes as Trino writes
 * it ({@code "a.b"}, {@code "a""b"}). A part must be quoted when it holds a {@code .}, a quote
 * character, a glob {@code *} (when it is literal), a comma, a parenthesis or blank space; anything
 * else, colons, slashes and any unicode letter included, may stand unquoted. Names are rendered with
 * backticks where a part needs them and bare otherwise, so a plain {@code raw.events} reads as before.
 */
public final class Identifiers {
  private Identifiers() {}

  /** A reference read from a longer text: its parts and where it ends. */
  public record Read(List<String> parts, int end) {
    public Read {
      parts = List.copyOf(parts);
    }
  }

  /** The parts of a whole text, e.g. {@code db.`table:with.special:chars`} is {@code [db, table:with.special:chars]}. */
  public static List<String> parts(String text, String what) {
    if (text == null || text.isEmpty()) {
      throw new UsageException(what + " is empty");
    }
    Read r = read(text, 0, false, what);
    if (r.end() != text.length()) {
      throw new UsageException(what + ": cannot read '" + text + "' after position " + r.end()
          + " (quote a part holding blanks, commas or parentheses in backticks: `my part`)");
    }
    return r.parts();
  }

  /**
   * Reads one dotted reference starting at {@code from}. An unquoted part ends at a {@code .}, and,
   * when {@code embedded} (a column inside a sort order), also at blank space, a comma or a
   * parenthesis; quotes must open a part, not appear inside an unquoted one.
   */
  public static Read read(String text, int from, boolean embedded, String what) {
    List<String> parts = new ArrayList<>();
    int i = from;
    while (true) {
      if (i >= text.length()) {
        throw new UsageException(
            what + ": '" + text + "' " + (parts.isEmpty() ? "names nothing" : "ends with a '.'"));
      }
      char c = text.charAt(i);
      StringBuilder part = new StringBuilder();
      if (c == '`' || c == '"') {
        Quoted q = quoted(text, i, what);
        part.append(q.part());
        i = q.end();
      } else {
        int j = i;
        while (j < text.length() && !ends(text.charAt(j), embedded)) {
          char d = text.charAt(j);
          if (d == '`' || d == '"') {
            throw new UsageException(what + ": '" + text + "' has a " + d
                + " inside a part: quote the whole part in backticks"
                + " (a backtick inside doubled) or double quotes");
          }
          part.append(d);
          j++;
        }
        if (part.isEmpty()) {
          throw new UsageException(what + ": '" + text + "' has an empty part");
        }
        i = j;
      }
      parts.add(part.toString());
      if (i < text.length() && text.charAt(i) == '.') {
        i++;
        continue;
      }
      if (i < text.length() && !embedded) {
        throw new UsageException(what + ": '" + text
            + "': after a quoted part comes '.' or the end (got '" + text.charAt(i) + "')");
      }
      return new Read(parts, i);
    }
  }

  /** One quoted part and the index after its closing quote. */
  record Quoted(String part, int end) {}

  /** Reads the part quoted by the backtick or double quote at {@code from}; the quote doubled stands for itself. */
  static Quoted quoted(String text, int from, String what) {
    char q = text.charAt(from);
    StringBuilder part = new StringBuilder();
    int j = from + 1;
    while (true) {
      if (j >= text.length()) {
        throw new UsageException(what + ": '" + text + "' has an unclosed " + q);
      }
      char d = text.charAt(j);
      if (d == q) {
        if (j + 1 < text.length() && text.charAt(j + 1) == q) {
          part.append(q);
          j += 2;
          continue;
        }
        break;
      }
      part.append(d);
      j++;
    }
    if (part.isEmpty()) {
      throw new UsageException(what + ": '" + text + "' has an empty quoted part");
    }
    return new Quoted(part.toString(), j + 1);
  }

  private static boolean ends(char c, boolean embedded) {
    return c == '.' || embedded && (Character.isWhitespace(c) || c == ',' || c == '(' || c == ')');
  }

  /** A part as the rule writes it: bare when it can be, else in backticks. */
  public static String quote(String part) {
    return needsQuotes(part) ? "`" + part.replace("`", "``") + "`" : part;
  }

  /** Parts joined by {@code .}, each quoted only where it must be. */
  public static String render(List<String> parts) {
    StringBuilder b = new StringBuilder();
    for (String p : parts) {
      if (!b.isEmpty()) {
        b.append('.');
      }
      b.append(quote(p));
    }
    return b.toString();
  }

  static boolean needsQuotes(String part) {
    if (part.isEmpty()) {
      return true;
    }
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c == '.'
          || c == '`'
          || c == '"'
          || c == '*'
          || c == ','
          || c == '('
          || c == ')'
          || Character.isWhitespace(c)
          || Character.isISOControl(c)
          || Character.isSpaceChar(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Splits a list such as {@code a, `b,c`, day(ts)} at the commas outside quotes and parentheses;
   * each item is trimmed, and an empty item is refused.
   */
  public static List<String> splitList(String text, String what) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
            i++;
          } else {
            quote = 0;
          }
        }
      } else if (c == '`' || c == '"') {
        quote = c;
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(text.substring(start, i).trim());
        start = i + 1;
      }
    }
    if (quote != 0) {
      throw new UsageException(what + ": '" + text + "' has an unclosed " + quote);
    }
    out.add(text.substring(start).trim());
    if (out.stream().anyMatch(String::isEmpty)) {
      throw new UsageException(what + ": empty item in '" + text + "'");
    }
    return out;
  }

  /**
   * A column list for a format that names top-level columns by their whole name (Delta): each item's
   * parts joined by {@code .}, so {@code `a.b`}, {@code "a.b"} and {@code a.b} all name the column {@code a.b}.
   */
  public static List<String> topLevelNames(List<String> texts, String what) {
    return splitLists(texts, what).stream()
        .map(t -> String.join(".", parts(t, what)))
        .toList();
  }

  /** The items of {@code texts} (each maybe a comma-separated list, as a repeated flag gives them), split as {@link #splitList}. */
  public static List<String> splitLists(List<String> texts, String what) {
    List<String> out = new ArrayList<>();
    for (String t : texts) {
      out.addAll(splitList(t, what));
    }
    return out;
  }
}
