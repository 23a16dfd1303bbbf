package dev.resurfacer.iceberg.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server the Postgres catalog tests use: a real one this test JVM starts itself on
 * first use ({@link LocalPostgres}: binaries from Maven, nothing to install) and shares between its
 * tests, or, when {@code RESURFACER_TEST_PG_URL} is set, that server (with {@code _USER} and
 * {@code _PASSWORD}, default {@code resurfacer}). When there is none (the binaries do not run on
 * this platform, or the named server does not answer) a test is skipped with the reason on one line,
 * but fails when {@code CI} is set: CI must never pass by skipping.
 */
public record PostgresServer(String url, String user, String password) {
  /** The server; otherwise the calling test is skipped (no CI) or fails (CI). */
  public static PostgresServer require() {
    Found found = find();
    if (found.server() == null) {
      if (System.getenv("CI") != null) {
        throw new AssertionError(
            found.problem() + " — CI is set, so this is a failure, not a skip");
      }
      Assumptions.abort(found.problem());
    }
    return found.server();
  }

  /** The server, or none (for fixtures that add a Postgres catalog only when there is one; {@link #require()} then says why). */
  public static Optional<PostgresServer> ifAvailable() {
    return Optional.ofNullable(find().server());
  }

  /** A server, or why there is none. */
  private record Found(PostgresServer server, String problem) {}

  private static Found find() {
    String url = System.getenv("RESURFACER_TEST_PG_URL");
    if (url == null || url.isBlank()) {
      return Local.FOUND;
    }
    PostgresServer named = new PostgresServer(
        url,
        env("RESURFACER_TEST_PG_USER", "resurfacer"),
        env("RESURFACER_TEST_PG_PASSWORD", "resurfacer"));
    String problem = named.problem();
    return problem == null
        ? new Found(named, null)
        : new Found(
            null,
            "no PostgreSQL at " + url + " (" + problem
                + "), which RESURFACER_TEST_PG_URL names; unset it to have the tests start one");
  }

  /**
   * The one server this JVM starts. Static on purpose, the only such state in the fixtures: a cluster
   * takes seconds to create and every test class of the JVM can share one (tests keep apart by
   * catalog name or schema), so the first test that needs it starts it (class initialization: once,
   * even with tests in parallel), a failure is remembered rather than retried by every test, and a
   * shutdown hook stops it and deletes its folder when the JVM exits.
   */
  private static final class Local {
    static final Found FOUND = start();

    private static Found start() {
      try {
        long t0 = System.nanoTime();
        LocalPostgres pg = LocalPostgres.start();
        System.out.println("local PostgreSQL at " + pg.url() + " started in "
            + (System.nanoTime() - t0) / 1_000_000 + " ms");
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "local-postgres-stop"));
        return new Found(
            new PostgresServer(pg.url(), LocalPostgres.USER, LocalPostgres.PASSWORD), null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Found(null, "starting a local PostgreSQL was interrupted");
      } catch (Exception e) {
        return new Found(
            null,
            "could not start a local PostgreSQL (" + (e.getMessage() == null ? e : e.getMessage())
                + "); RESURFACER_TEST_PG_URL names a server of your own instead");
      }
    }
  }

  private String problem() {
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
