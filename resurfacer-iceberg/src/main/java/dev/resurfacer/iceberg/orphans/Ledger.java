package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The listed and the referenced files, held in an on-disk DuckDB database rather than the JVM heap,
 * so a table with millions of files is compared in bounded memory: both sides are streamed in with
 * the appender, and every answer (counts, samples, the orphans themselves) is streamed back out.
 */
final class Ledger implements AutoCloseable {
  record Totals(long files, long bytes) {}

  record Listed(String location, long sizeBytes, long createdAtMillis) {}

  private final Path dir;
  private final DuckDBConnection conn;
  private DuckDBAppender listed;
  private DuckDBAppender reachable;
  private DuckDBAppender late;

  Ledger(String memoryLimit) {
    try {
      dir = Files.createTempDirectory("resurfacer-orphans-");
      java.util.Properties props = new java.util.Properties();
      // results (the orphan list above all) come back in chunks instead of materialized at once
      props.setProperty("jdbc_stream_results", "true");
      conn = (DuckDBConnection)
          DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("ledger.duckdb"), props);
      try (Statement s = conn.createStatement()) {
        s.execute("SET memory_limit = '" + memoryLimit.replace("'", "") + "'");
        s.execute(
            "SET temp_directory = '" + dir.resolve("spill").toString().replace("'", "''") + "'");
        s.execute("SET preserve_insertion_order = false");
        s.execute(
            "CREATE TABLE listed (key VARCHAR, path VARCHAR, location VARCHAR, size BIGINT, created_ms BIGINT, young BOOLEAN)");
        s.execute(
            "CREATE TABLE reachable (key VARCHAR, path VARCHAR, category VARCHAR, in_scope BOOLEAN, must_be_listed BOOLEAN)");
        s.execute("CREATE TABLE late (key VARCHAR)");
      }
      listed = conn.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "listed");
      reachable = conn.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "reachable");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open the DuckDB ledger: " + e.getMessage(), e);
    }
  }

  void addListed(StoredFile uri, String location, long size, long createdMs, boolean young) {
    try {
      if (listed == null) {
        listed = conn.createAppender(
            DuckDBConnection.DEFAULT_SCHEMA, "listed"); // files dated after the listing's seal
      }
      listed
          .beginRow()
          .append(uri.key())
          .append(uri.path())
          .append(location)
          .append(size)
          .append(createdMs)
          .append(young)
          .endRow();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  void addReachable(StoredFile uri, Category category, boolean inScope, boolean mustBeListed) {
    try {
      reachable
          .beginRow()
          .append(uri.key())
          .append(uri.path())
          .append(category.name())
          .append(inScope)
          .append(mustBeListed)
          .endRow();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A file the metadata references as read just before deleting, after the orphans were computed. */
  void addLateReference(StoredFile uri) {
    try {
      if (late == null) {
        late = conn.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "late");
      }
      late.beginRow().append(uri.key()).endRow();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletion candidates that the late references name: the table changed under the run. */
  List<String> orphansReferencedLate(int limit) {
    seal();
    List<String> out = new ArrayList<>();
    query(
        "SELECT DISTINCT l.location FROM (" + ORPHANS
            + ") l JOIN listed x ON x.location = l.location"
            + " WHERE x.key IN (SELECT key FROM late) ORDER BY 1 LIMIT " + limit,
        rs -> out.add(rs.getString(1)));
    return out;
  }

  /** Ends appending; queries see everything appended before. */
  void seal() {
    try {
      if (listed != null) {
        listed.close();
        listed = null;
      }
      if (reachable != null) {
        reachable.close();
        reachable = null;
      }
      if (late != null) {
        late.close();
        late = null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  Map<Category, Long> referencedByCategory() {
    Map<Category, Long> counts = new EnumMap<>(Category.class);
    for (Category c : Category.values()) {
      counts.put(c, 0L);
    }
    query(
        "SELECT category, count(DISTINCT key) FROM reachable GROUP BY category",
        rs -> counts.put(Category.valueOf(rs.getString(1)), rs.getLong(2)));
    return counts;
  }

  long referencedOutsideScope() {
    return single("SELECT count(DISTINCT key) FROM reachable WHERE NOT in_scope");
  }

  long referencedInScope() {
    return single("SELECT count(DISTINCT key) FROM reachable WHERE in_scope");
  }

  /** Referenced files that existed before listing began but the listing did not return. */
  Totals missingFromListing(List<String> sample, int limit) {
    String missing =
        "SELECT DISTINCT key FROM reachable WHERE must_be_listed EXCEPT SELECT key FROM listed";
    long n = single("SELECT count(*) FROM (" + missing + ")");
    query(
        "SELECT key FROM (" + missing + ") ORDER BY key LIMIT " + limit,
        rs -> sample.add(rs.getString(1)));
    return new Totals(n, 0);
  }

  /** Up to {@code limit} keys of referenced files the listing did not return. */
  List<String> missingKeys(int limit) {
    List<String> out = new ArrayList<>();
    query(
        "SELECT DISTINCT key FROM reachable WHERE must_be_listed EXCEPT SELECT key FROM listed LIMIT "
            + limit,
        rs -> out.add(rs.getString(1)));
    return out;
  }

  /**
   * A listed file and a referenced file with the same path but a different scheme or authority: the
   * two sides name storage differently, so the join cannot be trusted.
   */
  List<String> prefixMismatches(int limit) {
    List<String> out = new ArrayList<>();
    query(
        "SELECT DISTINCT l.key, r.key FROM listed l JOIN reachable r ON l.path = r.path AND l.key <> r.key"
            + " ORDER BY 1 LIMIT " + limit,
        rs -> out.add(rs.getString(1) + " is referenced as " + rs.getString(2)));
    return out;
  }

  Totals listedTotals() {
    return totals("SELECT count(*), coalesce(sum(size), 0) FROM listed");
  }

  Totals keptReachable() {
    return totals(
        "SELECT count(*), coalesce(sum(size), 0) FROM listed WHERE key IN (SELECT key FROM reachable)");
  }

  Totals keptTooYoung() {
    return totals("SELECT count(*), coalesce(sum(size), 0) FROM listed WHERE young AND key IN ("
        + UNREFERENCED + ")");
  }

  Totals orphans() {
    return totals("SELECT count(*), coalesce(sum(size), 0) FROM (" + ORPHANS + ")");
  }

  /** Streams the deletion candidates, oldest first, without materializing them in the JVM. */
  void forEachOrphan(Consumer<Listed> consumer) {
    query(
        "SELECT location, size, created_ms FROM (" + ORPHANS + ") ORDER BY created_ms, location",
        rs -> consumer.accept(new Listed(rs.getString(1), rs.getLong(2), rs.getLong(3))));
  }

  private static final String UNREFERENCED =
      "SELECT key FROM listed EXCEPT SELECT key FROM reachable";

  private static final String ORPHANS =
      "SELECT DISTINCT l.location, l.size, l.created_ms FROM listed l"
          + " WHERE NOT l.young AND l.key IN (" + UNREFERENCED + ")";

  private interface Row {
    void accept(ResultSet rs) throws SQLException;
  }

  private void query(String sql, Row row) {
    try (Statement s = conn.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        row.accept(rs);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB ledger query failed: " + e.getMessage(), e);
    }
  }

  private long single(String sql) {
    long[] v = new long[1];
    query(sql, rs -> v[0] = rs.getLong(1));
    return v[0];
  }

  private Totals totals(String sql) {
    long[] v = new long[2];
    query(sql, rs -> {
      v[0] = rs.getLong(1);
      v[1] = rs.getLong(2);
    });
    return new Totals(v[0], v[1]);
  }

  @Override
  public void close() {
    try {
      seal();
    } catch (RuntimeException ignored) {
      // closing after a failure: the failure already explains what happened
    }
    try {
      conn.close();
    } catch (SQLException ignored) {
      // the database is a temporary file that is removed next
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temp directory is harmless
    }
  }
}
