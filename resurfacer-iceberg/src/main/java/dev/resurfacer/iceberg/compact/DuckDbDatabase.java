package dev.resurfacer.iceberg.compact;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.duckdb.DuckDBConnection;

/**
 * The one in-process DuckDB database the groups of a compaction run are rewritten on, each group on
 * a connection of its own (a group's temporary tables are its connection's and go with it). DuckDB
 * reserves its memory blocks per database and touches each block's pages on first use: with a
 * database per group, every group faulted in all it used anew, ~700,000 page faults and 5-7 s of
 * system time in a sorted compaction of the 10M-row table. Shared, the groups that start later
 * reuse the blocks of those that finished (docs/benchmarks.md). Its memory limit is the run's whole
 * budget, and its threads those the per-group databases had together, so {@code --memory} bounds
 * the run as before. Opened by the first group that needs it, closed by the run.
 */
final class DuckDbDatabase implements AutoCloseable {
  private final long memoryBytes;
  private final int threads;
  private final boolean ordered;
  private final Path spill;
  private DuckDBConnection base;
  private boolean closed;

  /**
   * @param groupsAtOnce how many groups share it at a time
   * @param threadsPerGroup the threads each group would have had in a database of its own
   */
  DuckDbDatabase(
      long memoryBytes, int groupsAtOnce, int threadsPerGroup, boolean ordered, Path spill) {
    this.memoryBytes = memoryBytes;
    // a query's own (calling) thread works on it beside DuckDB's workers: the groups' calling
    // threads and each group's other threads, as in databases of their own
    this.threads = 1 + Math.max(1, groupsAtOnce) * (Math.max(1, threadsPerGroup) - 1);
    this.ordered = ordered;
    this.spill = spill;
  }

  /** A new connection to the database, opened on first use; the caller closes it. */
  synchronized Connection connect() throws SQLException {
    if (closed) {
      throw new IllegalStateException("the compaction's DuckDB database is closed");
    }
    if (base == null) {
      DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
      try (Statement st = c.createStatement()) {
        configure(st, memoryBytes, threads, ordered, spill);
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
      base = c;
    }
    return base.duplicate();
  }

  /** Closes the database: DuckDB frees it when the last of its connections closes too. */
  @Override
  public synchronized void close() throws SQLException {
    closed = true;
    if (base != null) {
      base.close();
      base = null;
    }
  }

  /** The settings of a database a big group is rewritten on (its own, or the run's). */
  static void configure(Statement st, long memoryBytes, int threads, boolean ordered, Path spill)
      throws SQLException {
    long mb = Math.max(64, memoryBytes >> 20);
    st.execute("SET memory_limit='" + mb + "MB'");
    // DuckDB's blocks stay mapped up to the memory limit instead of going back to the kernel after
    // each task and faulting in again: page faults were ~10% of a 10M-row bin-pack's CPU
    // (docs/benchmarks.md); the buffer manager still bounds the blocks by memory_limit
    st.execute("SET block_allocator_memory='" + mb + "MB'");
    // an ordered rewrite keeps a sort run per thread in memory: below ~256 MB a thread, DuckDB
    // fails to pin blocks instead of spilling (measured on a 236 MB partition), so use one thread
    int n = ordered && mb / Math.max(1, threads) < 256 ? 1 : Math.max(1, threads);
    st.execute("SET threads=" + n);
    st.execute("SET temp_directory=" + DuckTypes.string(spill.toString()));
    // ordered output must keep its order across the files DuckDB rolls over to
    st.execute("SET preserve_insertion_order=" + ordered);
    st.execute("SET TimeZone='UTC'");
    // DuckDB never touches the network: remote files are staged through Iceberg's FileIO
    st.execute("SET autoinstall_known_extensions=false");
    st.execute("SET autoload_known_extensions=false");
  }
}
