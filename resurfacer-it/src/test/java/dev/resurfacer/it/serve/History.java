package dev.resurfacer.it.serve;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The run history as the test reads it: straight from serve's SQLite file, not through serve. */
record History(List<Row> rows) {
  record Row(
      long id,
      String table,
      String status,
      long pid,
      long startedAt,
      Long finishedAt,
      String trigger,
      long reclaimedFiles) {}

  static History read(Path db) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement s = c.createStatement()) {
      s.execute("PRAGMA busy_timeout = 30000");
      try (ResultSet rs = s.executeQuery(
          "SELECT id, catalog_name || '.' || table_name, status, pid, started_at, finished_at, "
              + "trigger_reason, reclaimed_files FROM resurfacer_runs ORDER BY id")) {
        while (rs.next()) {
          long finished = rs.getLong(6);
          rows.add(new Row(
              rs.getLong(1),
              rs.getString(2),
              rs.getString(3),
              rs.getLong(4),
              rs.getLong(5),
              rs.wasNull() ? null : finished,
              rs.getString(7),
              rs.getLong(8)));
        }
      }
    }
    return new History(rows);
  }

  List<Row> withStatus(String status) {
    return rows.stream().filter(r -> r.status().equals(status)).toList();
  }
}
