package dev.resurfacer.trino;

import dev.resurfacer.UsageException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * How we reach one Trino catalog: the JDBC URL, the catalog our tables are in, the user, and
 * optionally a password or an access token (already resolved from a secret reference; never
 * printed — {@link #toString()} names only whether one is set).
 *
 * @param url {@code jdbc:trino://host:port}
 * @param catalog the Trino catalog that exposes the tables (for example {@code iceberg})
 */
public record TrinoConnection(
    String url, String catalog, String user, String password, String accessToken) {
  public TrinoConnection {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(catalog, "catalog");
    if (!url.startsWith("jdbc:trino://")) {
      throw new UsageException("engines.trino.url must start with jdbc:trino:// (got "
          + url.replaceAll("[?;].*", "") + ")");
    }
    // the URL is printed in messages: credentials go only in password/access-token, by secret
    // reference
    if (url.contains("?") || url.contains(";") || url.matches("jdbc:trino://[^/]*@.*")) {
      throw new UsageException(
          "engines.trino.url takes no parameters or credentials (jdbc:trino://host:port); "
              + "give password or access-token by secret reference");
    }
    if (catalog.isBlank() || !catalog.matches("[A-Za-z0-9_]+")) {
      throw new UsageException(
          "engines.trino.catalog must be a plain Trino catalog name (got '" + catalog + "')");
    }
    user = user == null || user.isBlank() ? "resurfacer" : user;
  }

  /** The same server and user, exposing tables through another Trino catalog. */
  public TrinoConnection withCatalog(String other) {
    return other.equals(catalog)
        ? this
        : new TrinoConnection(url, other, user, password, accessToken);
  }

  /**
   * A connection with the catalog as its default. Connection failures become one clear line: the
   * driver connects lazily, so this runs a trivial query to surface an unreachable server here.
   */
  public Connection open() {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) {
      p.setProperty("password", password);
    }
    if (accessToken != null) {
      p.setProperty("accessToken", accessToken);
    }
    p.setProperty("source", "resurfacer");
    try {
      Connection c = DriverManager.getConnection(url, p);
      c.setCatalog(catalog);
      return c;
    } catch (SQLException e) {
      throw TrinoFailures.translate(this, "connect", e);
    }
  }

  @Override
  public String toString() {
    return "TrinoConnection[url=" + url + ", catalog=" + catalog + ", user=" + user + ", password="
        + (password == null ? "unset" : "<redacted>") + ", accessToken="
        + (accessToken == null ? "unset" : "<redacted>") + "]";
  }
}
