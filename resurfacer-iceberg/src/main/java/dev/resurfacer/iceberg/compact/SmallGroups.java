package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.duckdb.DuckDBConnection;

/**
 * The small path of compaction: a group whose input is at most {@link #MAX_BYTES} (the
 * {@code small-group-bytes} option; 0 turns it off) is rewritten by DuckDB on a
 * connection to one in-process DuckDB database the JVM keeps (one thread, a small memory limit),
 * not in a database started for it. Starting a DuckDB database costs about 10 ms of CPU and 45 ms of
 * wall time, more than rewriting a few megabytes takes; a streaming table or a fleet of small tables
 * pays it for every group. The database holds nothing between groups: every table a group creates
 * is a temporary table of its own connection, dropped when the connection closes. Its settings are
 * the same for every small group (a bigger group gets a database of its own, sized for it), and it
 * preserves insertion order, as an ordered rewrite needs. The database is the process's, like the
 * DuckDB driver itself: created on first use, never closed.
 */
final class SmallGroups {
  /** Inputs up to this size take the small path unless the {@code small-group-bytes} option says otherwise. */
  static final long MAX_BYTES = 32L << 20;
  /** DuckDB's memory for every small group at once: a 32 MB group's rewrite stays far below it. */
  private static final long MEMORY_MB = 256;

  private SmallGroups() {}

  /** A new connection to the shared database; the caller closes it (its temporary tables go with it). */
  static Connection connect(long memoryBytes) throws SQLException {
    Connection c = Database.BASE.duplicate();
    try (Statement st = c.createStatement()) {
      // never above the compaction's own memory setting, so the small path keeps memory bounded too
      st.execute(
          "SET memory_limit='" + Math.max(64, Math.min(MEMORY_MB, memoryBytes >> 20)) + "MB'");
      st.execute("SET TimeZone='UTC'");
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** The holder idiom: the database starts when the first small group needs it, once, thread-safely. */
  private static final class Database {
    static final DuckDBConnection BASE = open();

    private static DuckDBConnection open() {
      try {
        Path spill = Files.createTempDirectory("resurfacer-duckdb-small-");
        spill.toFile().deleteOnExit();
        DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = c.createStatement()) {
          st.execute("SET threads=1");
          st.execute("SET memory_limit='" + MEMORY_MB + "MB'");
          st.execute("SET temp_directory=" + DuckTypes.string(spill.toString()));
          st.execute("SET preserve_insertion_order=true");
          // DuckDB never touches the network: remote files are staged through Iceberg's FileIO
          st.execute("SET autoinstall_known_extensions=false");
          st.execute("SET autoload_known_extensions=false");
          // each group reads files it staged or that no other group rewrites: nothing is worth
          // keeping between groups
          st.execute("SET enable_external_file_cache=false");
        }
        return c;
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot start the in-process DuckDB database for small groups: " + e.getMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
