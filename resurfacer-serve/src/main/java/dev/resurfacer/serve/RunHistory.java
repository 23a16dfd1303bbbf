package dev.resurfacer.serve;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.UsageException;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.report.TableStats;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * Every run {@code serve} starts, kept in a SQL database: an embedded SQLite file by default, or
 * PostgreSQL. A run is written as {@code running} before its first change and completed afterwards,
 * so a process killed in between leaves a row that {@link #markInterrupted} later closes as
 * {@code interrupted}. Several {@code serve} processes may share one history; it also holds which
 * tables are paused.
 */
public final class RunHistory {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final String COLUMNS =
      "id, catalog_name, table_name, trigger_reason, operations, status, started_at, "
          + "finished_at, duration_ms, message, report_json, reclaimed_files, reclaimed_bytes, host, pid";

  private final String url;
  private final Properties connectionProperties;
  private final boolean sqlite;

  private RunHistory(String url, Properties connectionProperties) {
    this.url = url;
    this.connectionProperties = connectionProperties;
    this.sqlite = url.startsWith("jdbc:sqlite:");
  }

  /**
   * @param location a SQLite file path, or a {@code jdbc:postgresql:} (or {@code jdbc:sqlite:}) URL
   */
  public static RunHistory open(String location, String user, String password) {
    String url = location.startsWith("jdbc:") ? location : "jdbc:sqlite:" + location;
    if (!url.startsWith("jdbc:sqlite:") && !url.startsWith("jdbc:postgresql:")) {
      throw new UsageException("serve.history must be a SQLite file or a jdbc:postgresql: URL (got "
          + location.replaceAll("//[^/@]*@", "//****@") + ")");
    }
    Properties props = new Properties();
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    RunHistory h = new RunHistory(url, props);
    h.createTables();
    return h;
  }

  private Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(url, connectionProperties);
    if (sqlite) {
      try (Statement s = c.createStatement()) {
        // two serve processes may write at once: wait for the other's write instead of failing
        s.execute("PRAGMA busy_timeout = 30000");
      }
    }
    return c;
  }

  private void createTables() {
    String id = sqlite ? "id INTEGER PRIMARY KEY AUTOINCREMENT" : "id BIGSERIAL PRIMARY KEY";
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      if (sqlite) {
        s.execute("PRAGMA journal_mode = WAL");
      }
      s.execute("CREATE TABLE IF NOT EXISTS resurfacer_runs (" + id
          + ", catalog_name VARCHAR(255) NOT NULL, "
          + "table_name VARCHAR(1024) NOT NULL, trigger_reason TEXT, operations TEXT, status VARCHAR(32) NOT NULL, "
          + "started_at BIGINT NOT NULL, finished_at BIGINT, duration_ms BIGINT, message TEXT, report_json TEXT, "
          + "reclaimed_files BIGINT NOT NULL DEFAULT 0, reclaimed_bytes BIGINT NOT NULL DEFAULT 0, host VARCHAR(255), "
          + "pid BIGINT, heartbeat_at BIGINT)");
      s.execute(
          "CREATE INDEX IF NOT EXISTS resurfacer_runs_table ON resurfacer_runs (catalog_name, table_name, id)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS resurfacer_paused (catalog_name VARCHAR(255) NOT NULL, "
              + "table_name VARCHAR(1024) NOT NULL, paused_at BIGINT NOT NULL, PRIMARY KEY (catalog_name, table_name))");
    } catch (SQLException e) {
      throw new UsageException(
          "cannot open the run history " + redacted() + ": " + e.getMessage(), e);
    }
  }

  private String redacted() {
    return url.replaceAll("//[^/@]*@", "//****@")
        .replaceAll("(?i)password=[^&;]*", "password=****");
  }

  /** Records a run as {@code running} and returns its id. */
  public long start(
      String catalog, String table, String trigger, List<String> operations, Instant at) {
    String sql =
        "INSERT INTO resurfacer_runs (catalog_name, table_name, trigger_reason, operations, status, started_at, host, pid, heartbeat_at) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
      p.setString(1, catalog);
      p.setString(2, table);
      p.setString(3, trigger);
      p.setString(4, String.join(",", operations));
      p.setString(5, HistoryRun.RUNNING);
      p.setLong(6, at.toEpochMilli());
      p.setString(7, Host.name());
      p.setLong(8, ProcessHandle.current().pid());
      p.setLong(9, at.toEpochMilli());
      p.executeUpdate();
      try (ResultSet keys = p.getGeneratedKeys()) {
        keys.next();
        return keys.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot record the run's start in the history: " + e.getMessage(), e);
    }
  }

  /** Completes a run with its table report; the status is the table's outcome. */
  public void finish(long id, TableReport report, Instant at, long durationMs) {
    long[] reclaimed = reclaimed(report.before(), report.after());
    String json;
    try {
      json = JSON.writeValueAsString(report);
    } catch (Exception e) {
      throw new IllegalStateException("cannot serialize the run's report", e);
    }
    update(
        id,
        report.outcome().json(),
        report.message(),
        json,
        at,
        durationMs,
        reclaimed[0],
        reclaimed[1]);
  }

  /** Completes a run that could not finish (the service stopped, or it threw outside its report). */
  public void abandon(long id, String status, String message, Instant at, long durationMs) {
    update(id, status, message, null, at, durationMs, 0, 0);
  }

  private void update(
      long id,
      String status,
      String message,
      String json,
      Instant at,
      long durationMs,
      long files,
      long bytes) {
    String sql =
        "UPDATE resurfacer_runs SET status = ?, message = ?, report_json = ?, finished_at = ?, duration_ms = ?, "
            + "reclaimed_files = ?, reclaimed_bytes = ? WHERE id = ? AND status = ?";
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql)) {
      p.setString(1, status);
      p.setString(2, message);
      if (json == null) {
        p.setNull(3, Types.VARCHAR);
      } else {
        p.setString(3, json);
      }
      p.setLong(4, at.toEpochMilli());
      p.setLong(5, durationMs);
      p.setLong(6, files);
      p.setLong(7, bytes);
      p.setLong(8, id);
      p.setString(9, HistoryRun.RUNNING);
      p.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot record the run's end in the history: " + e.getMessage(), e);
    }
  }

  /** Tells other processes that these runs are still alive. */
  public void heartbeat(Set<Long> ids, Instant now) {
    if (ids.isEmpty()) {
      return;
    }
    try (Connection c = connect();
        PreparedStatement p =
            c.prepareStatement("UPDATE resurfacer_runs SET heartbeat_at = ? WHERE id = ?")) {
      for (long id : ids) {
        p.setLong(1, now.toEpochMilli());
        p.setLong(2, id);
        p.executeUpdate();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot update the history: " + e.getMessage(), e);
    }
  }

  /**
   * Closes as {@code interrupted} every {@code running} row whose process is gone: on this host, one
   * whose pid is no longer alive; on any host, one whose heartbeat is older than {@code stale}.
   *
   * @return the ids closed
   */
  public List<Long> markInterrupted(java.time.Duration stale, Instant now) {
    List<Long> closed = new ArrayList<>();
    String host = Host.name();
    long self = ProcessHandle.current().pid();
    try (Connection c = connect()) {
      List<long[]> candidates = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement(
          "SELECT id, pid, heartbeat_at, host, started_at FROM resurfacer_runs WHERE status = ?")) {
        p.setString(1, HistoryRun.RUNNING);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            long pid = rs.getLong(2);
            boolean here = host.equals(rs.getString(4));
            boolean dead = here
                ? pid != self && ProcessHandle.of(pid).map(ph -> !ph.isAlive()).orElse(true)
                : rs.getLong(3) < now.minus(stale).toEpochMilli();
            if (dead) {
              candidates.add(new long[] {rs.getLong(1), rs.getLong(5)});
            }
          }
        }
      }
      for (long[] run : candidates) {
        try (PreparedStatement p = c.prepareStatement(
            "UPDATE resurfacer_runs SET status = ?, message = ?, finished_at = ?, "
                + "duration_ms = ? WHERE id = ? AND status = ?")) {
          p.setString(1, HistoryRun.INTERRUPTED);
          p.setString(
              2,
              "its serve process ended before the run finished; each commit is atomic, so the table holds "
                  + "either a step's whole commit or none of it");
          p.setLong(3, now.toEpochMilli());
          p.setLong(4, Math.max(0, now.toEpochMilli() - run[1]));
          p.setLong(5, run[0]);
          p.setString(6, HistoryRun.RUNNING);
          if (p.executeUpdate() == 1) {
            closed.add(run[0]);
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the history: " + e.getMessage(), e);
    }
    return closed;
  }

  public Optional<HistoryRun> get(long id) {
    List<HistoryRun> runs =
        query("SELECT " + COLUMNS + " FROM resurfacer_runs WHERE id = ?", p -> p.setLong(1, id));
    return runs.stream().findFirst();
  }

  /** The newest runs first. */
  public List<HistoryRun> recent(int limit) {
    return query(
        "SELECT " + COLUMNS + " FROM resurfacer_runs ORDER BY id DESC LIMIT ?",
        p -> p.setInt(1, limit));
  }

  /** All runs, oldest first. */
  public List<HistoryRun> all() {
    return query("SELECT " + COLUMNS + " FROM resurfacer_runs ORDER BY id", p -> {});
  }

  /**
   * The table's newest run that ran (any outcome but {@code skipped}), from any process: what
   * {@code since-last-run}, {@code commits} and the minimum interval count from.
   */
  public Optional<HistoryRun> lastRun(String catalog, String table) {
    return query(
            "SELECT " + COLUMNS
                + " FROM resurfacer_runs WHERE catalog_name = ? AND table_name = ? AND status <> 'skipped' "
                + "ORDER BY id DESC LIMIT 1",
            p -> {
              p.setString(1, catalog);
              p.setString(2, table);
            })
        .stream()
        .findFirst();
  }

  /** Per table and status: how many runs, their total duration, files and bytes reclaimed. */
  public List<Totals> totals() {
    List<Totals> out = new ArrayList<>();
    String sql =
        "SELECT catalog_name, table_name, status, COUNT(*), COALESCE(SUM(duration_ms), 0), "
            + "COALESCE(SUM(reclaimed_files), 0), COALESCE(SUM(reclaimed_bytes), 0) FROM resurfacer_runs "
            + "GROUP BY catalog_name, table_name, status ORDER BY catalog_name, table_name, status";
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql);
        ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(new Totals(
            rs.getString(1),
            rs.getString(2),
            rs.getString(3),
            rs.getLong(4),
            rs.getLong(5),
            rs.getLong(6),
            rs.getLong(7)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the history: " + e.getMessage(), e);
    }
    return out;
  }

  public record Totals(
      String catalog,
      String table,
      String status,
      long runs,
      long durationMs,
      long reclaimedFiles,
      long reclaimedBytes) {}

  public void pause(String catalog, String table, Instant at) {
    String sql = sqlite
        ? "INSERT OR IGNORE INTO resurfacer_paused (catalog_name, table_name, paused_at) VALUES (?, ?, ?)"
        : "INSERT INTO resurfacer_paused (catalog_name, table_name, paused_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING";
    execute(sql, p -> {
      p.setString(1, catalog);
      p.setString(2, table);
      p.setLong(3, at.toEpochMilli());
    });
  }

  public void resume(String catalog, String table) {
    execute("DELETE FROM resurfacer_paused WHERE catalog_name = ? AND table_name = ?", p -> {
      p.setString(1, catalog);
      p.setString(2, table);
    });
  }

  /** {@code catalog.table} names of the paused tables. */
  public Set<String> paused() {
    Set<String> out = new HashSet<>();
    try (Connection c = connect();
        PreparedStatement p =
            c.prepareStatement("SELECT catalog_name, table_name FROM resurfacer_paused");
        ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1) + "." + rs.getString(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the history: " + e.getMessage(), e);
    }
    return out;
  }

  private interface Binder {
    void bind(PreparedStatement p) throws SQLException;
  }

  private void execute(String sql, Binder binder) {
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql)) {
      binder.bind(p);
      p.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot update the history: " + e.getMessage(), e);
    }
  }

  private List<HistoryRun> query(String sql, Binder binder) {
    List<HistoryRun> out = new ArrayList<>();
    try (Connection c = connect();
        PreparedStatement p = c.prepareStatement(sql)) {
      binder.bind(p);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(row(rs));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the history: " + e.getMessage(), e);
    }
    return out;
  }

  private static HistoryRun row(ResultSet rs) throws SQLException {
    String ops = rs.getString(5);
    long finished = rs.getLong(8);
    boolean hasFinished = !rs.wasNull();
    long duration = rs.getLong(9);
    boolean hasDuration = !rs.wasNull();
    String json = rs.getString(11);
    TableReport report = null;
    if (json != null) {
      try {
        report = JSON.readValue(json, TableReport.class);
      } catch (Exception e) {
        report = null;
      }
    }
    return new HistoryRun(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        ops == null || ops.isEmpty() ? List.of() : Arrays.asList(ops.split(",")),
        rs.getString(6),
        Instant.ofEpochMilli(rs.getLong(7)),
        hasFinished ? Instant.ofEpochMilli(finished) : null,
        hasDuration ? duration : null,
        rs.getString(10),
        report,
        rs.getLong(12),
        rs.getLong(13),
        rs.getString(14),
        rs.getLong(15));
  }

  /** Data and delete files (and their bytes) the run removed from the table's current state. */
  static long[] reclaimed(TableStats before, TableStats after) {
    if (before == null || after == null) {
      return new long[] {0, 0};
    }
    long files =
        before.dataFiles() + before.deleteFiles() - after.dataFiles() - after.deleteFiles();
    long bytes =
        before.dataBytes() + before.deleteBytes() - after.dataBytes() - after.deleteBytes();
    // a compaction can write a few more bytes than it replaced; reclaimed counts only what was
    // freed
    return new long[] {Math.max(0, files), Math.max(0, bytes)};
  }

  static final class Host {
    private Host() {}

    static String name() {
      try {
        return java.net.InetAddress.getLocalHost().getHostName();
      } catch (Exception e) {
        return "unknown-host";
      }
    }
  }
}
