package dev.resurfacer.names;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * A table's name as its catalog holds it: namespace levels and the table's own name, each any string.
 * {@link #toString()} is the name every verb, glob, policy key and report uses, quoted by
 * {@link Identifiers}' rule; {@link #parse} reads it back, so the two round-trip.
 *
 * <pre>
 * TableName.parse("db.`table:with.special:chars`")   // namespace [db], name "table:with.special:chars"
 * TableName.parse("\"db\".\"a\"\"b\"")                 // Trino's quoting: namespace [db], name a"b
 * </pre>
 */
public record TableName(List<String> namespace, String name) {
  public TableName {
    namespace = List.copyOf(namespace);
    if (namespace.isEmpty()
        || namespace.stream().anyMatch(String::isEmpty)
        || name == null
        || name.isEmpty()) {
      throw new IllegalArgumentException(
          "a table name has a namespace and a name, none of them empty");
    }
  }

  public static TableName of(List<String> namespace, String name) {
    return new TableName(namespace, name);
  }

  /** Reads {@code namespace.table}, parts quoted as {@link Identifiers} describes. */
  public static TableName parse(String text) {
    List<String> parts =
        text == null || text.isEmpty() ? List.of() : Identifiers.parts(text, "table name");
    if (parts.size() < 2) {
      throw new UsageException("table must be written namespace.table (got '" + text + "')");
    }
    return new TableName(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1));
  }

  /** The namespace of {@code maintain}'s namespace entries, quoted like a table name's parts. */
  public static List<String> parseNamespace(String text) {
    return Identifiers.parts(text, "namespace");
  }

  /** The canonical spelling of {@code text} if it is a table name, else {@code text} itself (a Delta path, say). */
  public static String canonical(String text) {
    try {
      return parse(text).toString();
    } catch (UsageException e) {
      return text;
    }
  }

  public List<String> parts() {
    List<String> all = new ArrayList<>(namespace);
    all.add(name);
    return List.copyOf(all);
  }

  @Override
  public String toString() {
    return Identifiers.render(parts());
  }
}
