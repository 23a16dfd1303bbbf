package dev.resurfacer.policy;

import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * A {@code tables:} key: an exact {@code namespace.table} or a glob where {@code *} matches any run of
 * characters ({@code raw.*}, {@code *.events}, {@code *}).
 */
record TablePattern(String text, int position) {
  /**
   * Least specific first: globs before exact names; among globs the longer literal prefix (the text
   * before the first {@code *}) is more specific, then more literal characters overall, then the
   * entry written later in the file.
   */
  static final Comparator<TablePattern> SPECIFICITY = Comparator
      .comparing(TablePattern::exact)
      .thenComparingInt(TablePattern::literalPrefix)
      .thenComparingInt(TablePattern::literals)
      .thenComparingInt(TablePattern::position);

  boolean exact() {
    return text.indexOf('*') < 0;
  }

  int literalPrefix() {
    int star = text.indexOf('*');
    return star < 0 ? text.length() : star;
  }

  int literals() {
    return text.replace("*", "").length();
  }

  boolean matches(String table) {
    if (exact()) {
      return text.equals(table);
    }
    return Pattern.matches(toRegex(), table);
  }

  private String toRegex() {
    StringBuilder regex = new StringBuilder();
    String[] parts = text.split("\\*", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        regex.append(".*");
      }
      regex.append(Pattern.quote(parts[i]));
    }
    return regex.toString();
  }
}
