package dev.resurfacer.iceberg.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server the Postgres catalog tests use, from {@code RESURFACER_TEST_PG_URL},
 * {@code _USER}, {@code _PASSWORD} (exported by {@code .ci/run}; the defaults match it). When no
 * server answers, a test is skipped on a developer machine but fails when {@code CI} is set: CI
 * must never pass by skipping.
 */
public record PostgresServer(String url, String user, String password) {
  public static PostgresServer fromEnvironment() {
    return new PostgresServer(
        env("RESURFACER_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:55432/resurfacer_test"),
        env("RESURFACER_TEST_PG_USER", "resurfacer"),
        env("RESURFACER_TEST_PG_PASSWORD", "resurfacer"));
  }

  /** The server, reachable; otherwise the calling test is skipped (no CI) or fails (CI). */
  public static PostgresServer require() {
    PostgresServer server = fromEnvironment();
    String problem = server.problem();
    if (problem != null) {
      String message = "no PostgreSQL at " + server.url() + " (" + problem + "); run .ci/run or set RESURFACER_TEST_PG_URL";
      if (System.getenv("CI") != null) {
        throw new AssertionError(message + " — CI is set, so this is a failure, not a skip");
      }
      Assumptions.abort(message);
    }
    return server;
  }

  /** Whether the server answers (for fixtures that add a Postgres catalog only when there is one). */
  public boolean reachable() {
    return problem() == null;
  }

  String problem() {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", "3");
    try (Connection c = DriverManager.getConnection(url, p)) {
      return c.isValid(3) ? null : "connection not valid";
    } catch (SQLException e) {
      return e.getMessage();
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
