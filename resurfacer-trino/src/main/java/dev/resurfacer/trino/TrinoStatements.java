package dev.resurfacer.trino;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;

/** Runs one statement on Trino and turns its failures into our exceptions ({@link TrinoFailures}). */
final class TrinoStatements {
  private final TrinoConnection trino;

  TrinoStatements(TrinoConnection trino) {
    this.trino = trino;
  }

  TrinoConnection connection() {
    return trino;
  }

  /**
   * Executes {@code sql}; when it returns rows (Trino's table procedures return one row of counts
   * in newer versions), the first row's numeric columns come back by name.
   */
  Map<String, Long> execute(String what, String sql) {
    return execute(what, sql, Map.of());
  }

  /** As {@link #execute(String, String)}, with Trino session properties set first on the same connection. */
  Map<String, Long> execute(String what, String sql, Map<String, String> session) {
    try (Connection c = trino.open();
        Statement s = c.createStatement()) {
      for (Map.Entry<String, String> e : session.entrySet()) {
        s.execute("SET SESSION " + e.getKey() + " = " + TrinoTableName.literal(e.getValue()));
      }
      Map<String, Long> metrics = new LinkedHashMap<>();
      if (s.execute(sql)) {
        try (ResultSet rs = s.getResultSet()) {
          ResultSetMetaData md = rs.getMetaData();
          if (rs.next()) {
            for (int i = 1; i <= md.getColumnCount(); i++) {
              if (rs.getObject(i) instanceof Number n) {
                metrics.put(md.getColumnName(i), n.longValue());
              }
            }
          }
          while (rs.next()) {
            // drain: Trino finishes the query when its results are consumed
          }
        }
      }
      return metrics;
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, what, e);
    }
  }

  /** The value of a one-row, one-column query. */
  String value(String what, String sql) {
    return query(what, sql, rs -> rs.next() ? rs.getString(1) : null);
  }

  /** The first column of every row of a query, as strings. */
  List<String> strings(String what, String sql) {
    return query(what, sql, TrinoStatements::firstColumn);
  }

  /** A session property's current value ({@code SHOW SESSION}); null when Trino has no such property. */
  String sessionProperty(String what, String name) {
    return query(what, "SHOW SESSION LIKE " + TrinoTableName.literal(name), rs -> {
      while (rs.next()) {
        if (name.equals(rs.getString("Name"))) {
          return rs.getString("Value");
        }
      }
      return null;
    });
  }

  /** Reaches the server and checks that the catalog exists (one line naming the catalogs there otherwise). */
  void requireCatalog() {
    List<String> catalogs = query("connect", "SHOW CATALOGS", TrinoStatements::firstColumn);
    if (!catalogs.contains(trino.catalog())) {
      throw new dev.resurfacer.UsageException("Trino at " + trino.url() + " has no catalog '"
          + trino.catalog() + "' (it has: " + String.join(", ", catalogs) + ")");
    }
  }

  /** An Iceberg table as this connection's catalog names it. */
  TrinoTableName name(TableIdentifier identifier) {
    return TrinoTableName.of(trino.catalog(), identifier);
  }

  /** Trino's statement running a table procedure: {@code call} is its name and any arguments. */
  static String tableProcedure(TrinoTableName table, String call) {
    return "ALTER TABLE " + table.sql() + " EXECUTE " + call;
  }

  /** Trino's {@code optimize}, which rewrites the table's data files below {@code fileSizeThreshold} bytes. */
  static String optimize(TrinoTableName table, long fileSizeThreshold) {
    return tableProcedure(
        table,
        "optimize(file_size_threshold => " + TrinoTableName.literal(fileSizeThreshold + "B") + ")");
  }

  /** Runs {@code procedure} on the table, keeping what is younger than {@code thresholdMillis} (by Trino's clock). */
  void executeWithRetention(TrinoTableName table, String procedure, long thresholdMillis) {
    execute(
        procedure,
        tableProcedure(
            table,
            procedure + "(retention_threshold => " + TrinoTableName.literal(thresholdMillis + "ms")
                + ")"));
  }

  /** How a query's results are read: JDBC's failures are ours to translate. */
  @FunctionalInterface
  private interface ResultReader<R> {
    R read(ResultSet rs) throws SQLException;
  }

  private <R> R query(String what, String sql, ResultReader<R> reader) {
    try (Connection c = trino.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return reader.read(rs);
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, what, e);
    }
  }

  private static List<String> firstColumn(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    while (rs.next()) {
      out.add(rs.getString(1));
    }
    return out;
  }
}
