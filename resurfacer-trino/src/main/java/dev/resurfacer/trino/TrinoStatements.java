package dev.resurfacer.trino;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

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
    try (Connection c = trino.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, what, e);
    }
  }

  /** The first column of every row of a query, as strings. */
  java.util.List<String> strings(String what, String sql) {
    try (Connection c = trino.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      java.util.List<String> out = new java.util.ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, what, e);
    }
  }

  /** A session property's current value ({@code SHOW SESSION}); null when Trino has no such property. */
  String sessionProperty(String what, String name) {
    try (Connection c = trino.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW SESSION LIKE " + TrinoTableName.literal(name))) {
      while (rs.next()) {
        if (name.equals(rs.getString("Name"))) {
          return rs.getString("Value");
        }
      }
      return null;
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, what, e);
    }
  }

  /** Reaches the server and checks that the catalog exists (one line naming the catalogs there otherwise). */
  void requireCatalog() {
    try (Connection c = trino.open();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW CATALOGS")) {
      java.util.List<String> catalogs = new java.util.ArrayList<>();
      while (rs.next()) {
        catalogs.add(rs.getString(1));
      }
      if (!catalogs.contains(trino.catalog())) {
        throw new dev.resurfacer.UsageException("Trino at " + trino.url() + " has no catalog '"
            + trino.catalog() + "' (it has: " + String.join(", ", catalogs) + ")");
      }
    } catch (SQLException e) {
      throw TrinoFailures.translate(trino, "connect", e);
    }
  }
}
