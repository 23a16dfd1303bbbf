package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DuckDB database a compaction run's groups share: one database, a connection per group whose
 * temporary tables are its own, sized to the whole run, unusable once the run closes it.
 */
class DuckDbDatabaseTest {
  @TempDir
  Path dir;

  @Test
  void groupsShareOneDatabaseAndKeepTheirTemporaryTablesApart() throws Exception {
    try (DuckDbDatabase database =
            new DuckDbDatabase(768L << 20, 2, 1, false, dir.resolve("spill"));
        Connection first = database.connect();
        Connection second = database.connect();
        Statement a = first.createStatement();
        Statement b = second.createStatement()) {
      // every group makes a temporary table named files: neither sees the other's
      a.execute("CREATE TEMP TABLE files(idx INTEGER)");
      b.execute("CREATE TEMP TABLE files(idx INTEGER)");
      a.execute("INSERT INTO files VALUES (1), (2)");
      assertThat(single(b, "SELECT count(*) FROM files")).isEqualTo("0");
      assertThat(single(a, "SELECT count(*) FROM files")).isEqualTo("2");
      // one database: what one connection creates outside its temporary schema, the other sees
      a.execute("CREATE TABLE shared_probe AS SELECT 42 AS v");
      assertThat(single(b, "SELECT v FROM shared_probe")).isEqualTo("42");
      // the run's whole memory, and the threads two one-thread groups had: their own calling
      // threads
      // 768 MB as DuckDB's decimal megabytes (the setting is written "768MB"), shown in MiB
      assertThat(single(b, "SELECT current_setting('memory_limit')")).isEqualTo("732.4 MiB");
      assertThat(single(b, "SELECT current_setting('threads')")).isEqualTo("1");
      assertThat(single(b, "SELECT current_setting('preserve_insertion_order')"))
          .isEqualTo("false");
      assertThat(single(b, "SELECT current_setting('TimeZone')")).isEqualTo("UTC");
    }
  }

  @Test
  void threadsAreThoseTheGroupsHadInDatabasesOfTheirOwn() throws Exception {
    try (DuckDbDatabase one = new DuckDbDatabase(2L << 30, 1, 2, false, dir.resolve("a"));
        DuckDbDatabase two = new DuckDbDatabase(4L << 30, 2, 3, false, dir.resolve("b"));
        DuckDbDatabase sorted = new DuckDbDatabase(256L << 20, 1, 4, true, dir.resolve("c"));
        Connection c1 = one.connect();
        Connection c2 = two.connect();
        Connection c3 = sorted.connect();
        Statement s1 = c1.createStatement();
        Statement s2 = c2.createStatement();
        Statement s3 = c3.createStatement()) {
      assertThat(single(s1, "SELECT current_setting('threads')")).isEqualTo("2");
      // two groups' calling threads and two more threads each
      assertThat(single(s2, "SELECT current_setting('threads')")).isEqualTo("5");
      // an ordered rewrite below 256 MB a thread runs on one
      assertThat(single(s3, "SELECT current_setting('threads')")).isEqualTo("1");
      assertThat(single(s3, "SELECT current_setting('preserve_insertion_order')"))
          .isEqualTo("true");
    }
  }

  @Test
  void aClosedDatabaseGivesNoConnectionAndAnOpenOneOutlivesItsClose() throws Exception {
    DuckDbDatabase database = new DuckDbDatabase(256L << 20, 1, 1, false, dir.resolve("spill"));
    try (Connection open = database.connect();
        Statement st = open.createStatement()) {
      database.close();
      assertThat(single(st, "SELECT 7")).isEqualTo("7");
    }
    assertThatThrownBy(database::connect)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  private static String single(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
