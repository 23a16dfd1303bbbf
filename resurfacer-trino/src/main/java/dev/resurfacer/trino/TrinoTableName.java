package dev.resurfacer.trino;

import dev.resurfacer.UsageException;
import org.apache.iceberg.catalog.TableIdentifier;

/** A table as Trino names it: catalog, schema (the one-level namespace) and table, quoted for SQL. */
record TrinoTableName(String catalog, String schema, String table) {
  static TrinoTableName of(String catalog, TableIdentifier identifier) {
    if (identifier.namespace().levels().length != 1) {
      throw new UsageException("Trino names tables catalog.schema.table: " + identifier + " has a "
          + identifier.namespace().levels().length + "-level namespace");
    }
    return new TrinoTableName(catalog, identifier.namespace().level(0), identifier.name());
  }

  String sql() {
    return quote(catalog) + "." + quote(schema) + "." + quote(table);
  }

  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  static String literal(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  @Override
  public String toString() {
    return catalog + "." + schema + "." + table;
  }
}
