package dev.resurfacer.names;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A table name or a glob over table names, as {@code --tables} and policy {@code tables:} keys take
 * them: parts quoted as {@link Identifiers} describes, and an unquoted {@code *} matching any run of
 * characters, across parts too ({@code raw.*} matches {@code raw.events} and {@code raw.web.clicks};
 * {@code db.`a*b`} is the one table named {@code a*b}). Matching compares parts, never spellings:
 * {@code db.events}, {@code `db`.`events`} and {@code "db"."events"} are the same table.
 *
 * @param exact the parts of the one name this is, or null for a glob
 * @param literalPrefix literal characters (separating dots included) before the first {@code *}
 * @param literals literal characters in all, separating dots included
 */
public record NameGlob(
    String text, List<String> exact, Pattern regex, int literalPrefix, int literals) {
  private static final char SEPARATOR = '\u0000';

  public static NameGlob parse(String text, String what) {
    if (text == null || text.isBlank()) {
      throw new UsageException(what + " is empty");
    }
    List<String> parts = new ArrayList<>();
    StringBuilder regex = new StringBuilder();
    boolean wildcard = false;
    int prefix = -1;
    int literals = 0;
    int i = 0;
    while (true) {
      if (i >= text.length()) {
        throw new UsageException(
            what + ": '" + text + "' " + (parts.isEmpty() ? "names nothing" : "ends with a '.'"));
      }
      StringBuilder part = new StringBuilder();
      char c = text.charAt(i);
      if (c == '`' || c == '"') {
        Identifiers.Quoted q = Identifiers.quoted(text, i, what);
        String literal = q.part();
        i = q.end();
        part.append(literal);
        regex.append(Pattern.quote(literal));
        literals += literal.length();
      } else {
        int j = i;
        while (j < text.length() && text.charAt(j) != '.') {
          char d = text.charAt(j);
          if (d == '`' || d == '"') {
            throw new UsageException(
                what + ": '" + text + "' has a " + d + " inside a part: quote the whole part");
          }
          if (d == '*') {
            wildcard = true;
            if (prefix < 0) {
              prefix = literals;
            }
            regex.append(".*");
          } else {
            regex.append(Pattern.quote(String.valueOf(d)));
            literals++;
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
        regex.append(Pattern.quote(String.valueOf(SEPARATOR)));
        literals++;
        i++;
        continue;
      }
      if (i < text.length()) {
        throw new UsageException(
            what + ": '" + text + "': after a quoted part comes '.' or the end");
      }
      break;
    }
    if (!wildcard && parts.size() < 2) {
      throw new UsageException(
          what + " '" + text + "' must be namespace.table or a glob such as raw.* or *.events");
    }
    return new NameGlob(
        text,
        wildcard ? null : List.copyOf(parts),
        Pattern.compile(regex.toString(), Pattern.DOTALL),
        prefix < 0 ? literals : prefix,
        literals);
  }

  public boolean isExact() {
    return exact != null;
  }

  /** Whether the table named {@code table} (any spelling; a text that is no table name counts as one part) matches. */
  public boolean matches(String table) {
    List<String> parts;
    try {
      parts = Identifiers.parts(table, "table name");
    } catch (UsageException e) {
      parts = List.of(table);
    }
    if (exact != null) {
      return exact.equals(parts);
    }
    return regex.matcher(String.join(String.valueOf(SEPARATOR), parts)).matches();
  }
}
