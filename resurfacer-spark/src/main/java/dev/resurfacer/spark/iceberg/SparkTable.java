package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Iceberg table as the cluster names it: the Spark catalog our catalog is configured as, and the
 * table's namespace and name, quoted so that any identifier survives the SQL text.
 *
 * @param catalog the Spark catalog name ({@code spark.sql.catalog.<name>} on the cluster)
 * @param parts namespace levels, then the table name
 */
public record SparkTable(String catalog, List<String> parts) {
  public SparkTable {
    parts = List.copyOf(parts);
  }

  /** @param catalogs our catalog name to the cluster's, where they differ */
  public static SparkTable of(IcebergTable t, Map<String, String> catalogs) {
    List<String> parts = new ArrayList<>(List.of(t.identifier().namespace().levels()));
    parts.add(t.identifier().name());
    return new SparkTable(catalogs.getOrDefault(t.catalog().name(), t.catalog().name()), parts);
  }

  /** {@code `cat`.`db`.`t`}, for queries. */
  public String qualified() {
    return quote(catalog) + "." + inCatalog();
  }

  /** {@code `db`.`t`}: what a procedure's {@code table} argument names. */
  public String inCatalog() {
    return String.join(".", parts.stream().map(SparkTable::quote).toList());
  }

  /** {@code CALL `cat`.system.<procedure>(table => '`db`.`t`', <args>)}. */
  public String call(String procedure, String... args) {
    StringBuilder b = new StringBuilder("CALL ")
        .append(quote(catalog))
        .append(".system.")
        .append(procedure)
        .append("(table => ")
        .append(string(inCatalog()));
    for (String a : args) {
      b.append(", ").append(a);
    }
    return b.append(')').toString();
  }

  static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** A Spark SQL string literal: backslash and quote escaped (Spark reads backslash escapes in literals). */
  public static String string(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** A {@code map('k', 'v', ...)} literal, keys sorted so the statement is the same on every run. */
  static String map(Map<String, String> entries) {
    List<String> items = new ArrayList<>();
    new java.util.TreeMap<>(entries).forEach((k, v) -> {
      items.add(string(k));
      items.add(string(v));
    });
    return "map(" + String.join(", ", items) + ")";
  }

  @Override
  public String toString() {
    return qualified();
  }
}
