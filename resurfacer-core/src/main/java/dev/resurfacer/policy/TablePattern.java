package dev.resurfacer.policy;

import dev.resurfacer.names.NameGlob;
import java.util.Comparator;

/**
 * A {@code tables:} key: an exact {@code namespace.table} or a glob where an unquoted {@code *}
 * matches any run of characters ({@code raw.*}, {@code *.events}, {@code *}); parts quoted as
 * {@link dev.resurfacer.names.Identifiers} describes.
 */
record TablePattern(NameGlob glob, int position) {
  /**
   * Least specific first: globs before exact names; among globs the longer literal prefix (the text
   * before the first {@code *}) is more specific, then more literal characters overall, then the
   * entry written later in the file.
   */
  static final Comparator<TablePattern> SPECIFICITY = Comparator.comparing(TablePattern::exact)
      .thenComparingInt(TablePattern::literalPrefix)
      .thenComparingInt(TablePattern::literals)
      .thenComparingInt(TablePattern::position);

  TablePattern(String text, int position) {
    this(NameGlob.parse(text, "tables key"), position);
  }

  String text() {
    return glob.text();
  }

  boolean exact() {
    return glob.isExact();
  }

  int literalPrefix() {
    return glob.literalPrefix();
  }

  int literals() {
    return glob.literals();
  }

  boolean matches(String table) {
    return glob.matches(table);
  }
}
