package dev.resurfacer.trino.testing;

import dev.resurfacer.iceberg.testing.PostgresServer;
import dev.resurfacer.iceberg.testing.RestCatalogServer;
import dev.resurfacer.iceberg.testing.S3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One lake for every Trino test class of a run: s3proxy, Iceberg's REST catalog server on it, and
 * one Trino server whose catalogs point at them. Started by the first class that uses it
 * ({@code @RegisterExtension static final TrinoLake LAKE = TrinoLake.shared();}) and stopped when the
 * run ends (JUnit closes the root store), so the Trino startup is paid once per run.
 *
 * <p>Trino catalogs: {@code iceberg} with both retention floors lowered to 0s (operations act on
 * tables seconds old); {@code iceberg_floored} on the same REST catalog with Trino's default 7-day
 * floors, for the refusal tests; {@code iceberg_guarded}, the same REST catalog under Trino's
 * file-based access control, where user {@value #BLIND_USER} may not read any table; and
 * {@code iceberg_pg}: an Iceberg JDBC catalog on the PostgreSQL of {@link PostgresServer} (the one the
 * test JVM starts; Trino reaches it over loopback) with its warehouse on the same s3proxy, the one
 * {@link #pgCatalog()} opens for us.
 * {@code delta} (vacuum floor lowered to 0s) and {@code delta_floored} (Trino's default 7d) are
 * Trino's Delta Lake connector on the same s3proxy with a file metastore there (Trino writes Delta
 * only through S3, GCS or Azure synchronizers, not to its local file system). Our Delta engine reads
 * local tables only so far, so the tests open Trino's Delta tables where s3proxy's filesystem backend
 * stores them ({@link S3Server#localFile}): the same bytes.
 */
public final class TrinoLake implements BeforeAllCallback {
  public static final String CATALOG = "iceberg";
  public static final String FLOORED_CATALOG = "iceberg_floored";
  public static final String GUARDED_CATALOG = "iceberg_guarded";
  public static final String PG_CATALOG = "iceberg_pg";
  public static final String DELTA_CATALOG = "delta";
  public static final String DELTA_FLOORED_CATALOG = "delta_floored";
  /** The user Trino's access control denies every table privilege in {@link #GUARDED_CATALOG}. */
  public static final String BLIND_USER = "blind";

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(TrinoLake.class);

  private Running running;

  public static TrinoLake shared() {
    return new TrinoLake();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    running = context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class);
  }

  public S3Server s3() {
    return running().s3;
  }

  public RestCatalogServer rest() {
    return running().rest;
  }

  public TrinoServer trino() {
    return running().trino;
  }

  /** Our own client of the same REST catalog (Iceberg core, S3FileIO): how our reader and the local engine see it. */
  public Catalog catalog() {
    return running().catalog;
  }

  /**
   * Our own client of the Iceberg JDBC catalog on PostgreSQL that Trino's {@value #PG_CATALOG}
   * exposes; when there was no PostgreSQL server as Trino started, the calling test is skipped with
   * the reason (fails under CI).
   */
  public Catalog pgCatalog() {
    if (running().pgCatalog == null) {
      PostgresServer.require();
      throw new IllegalStateException("PostgreSQL answers now but did not when Trino started");
    }
    return running().pgCatalog;
  }

  /** The name of {@link #pgCatalog()}: Iceberg's JDBC catalog_name, which Trino's catalog is configured with too. */
  public String pgCatalogName() {
    return pgCatalog().name();
  }

  /** The PostgreSQL settings {@link #pgCatalog()} uses (what a user writes in resurfacer.yml). */
  public Map<String, String> pgCatalogProperties() {
    pgCatalog();
    return running().pgProperties;
  }

  /** Where {@link #pgCatalog()} is: the PostgreSQL JDBC URL and the warehouse. */
  public String pgUri() {
    pgCatalog();
    return running().pgUri;
  }

  public String pgWarehouse() {
    return s3().warehouse(pgCatalogName());
  }

  /** A JDBC connection to Trino as {@code user}, default catalog {@code catalog}. */
  public Connection connect(String catalog) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "resurfacer-test");
    Connection c = DriverManager.getConnection(trino().jdbcUrl() + "/" + catalog, p);
    return c;
  }

  public void sql(String statement) {
    // "No nodes available" fails a query at scheduling, before it does anything, so it is safe to
    // run
    // again: a node the coordinator briefly lost (a slow announcement on a loaded machine) comes
    // back
    for (int attempt = 1; ; attempt++) {
      try (Connection c = connect(CATALOG);
          Statement s = c.createStatement()) {
        s.execute(statement);
        return;
      } catch (SQLException e) {
        if (attempt < 30
            && String.valueOf(e.getMessage()).contains("No nodes available to run query")) {
          try {
            Thread.sleep(1000);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(statement + ": interrupted", interrupted);
          }
          continue;
        }
        throw new IllegalStateException(statement + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Rows as Trino reads them, type-tagged ({@code column:trinoType=value}) and sorted: the second
   * reader next to Iceberg's own ({@code Content.of}).
   */
  public List<String> rows(String query) {
    try (Connection c = connect(CATALOG);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      ResultSetMetaData md = rs.getMetaData();
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          b.append(i > 1 ? ", " : "")
              .append(md.getColumnName(i))
              .append(':')
              .append(md.getColumnTypeName(i))
              .append('=')
              .append(
                  v == null
                      ? "null"
                      : v instanceof byte[] bytes
                          ? java.util.HexFormat.of().formatHex(bytes)
                          : v.toString());
        }
        out.add(b.append('}').toString());
      }
      out.sort(null);
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  /** Every row of {@code query}, by column name, untyped (for Trino's own tables such as SHOW STATS). */
  public List<Map<String, Object>> table(String query) {
    try (Connection c = connect(CATALOG);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      ResultSetMetaData md = rs.getMetaData();
      List<Map<String, Object>> out = new ArrayList<>();
      while (rs.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.put(md.getColumnName(i), rs.getObject(i));
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  public long count(String query) {
    try (Connection c = connect(CATALOG);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  private Running running() {
    if (running == null) {
      throw new IllegalStateException("register TrinoLake with @RegisterExtension");
    }
    return running;
  }

  /** The started servers; JUnit closes it when the root context closes (end of the run). */
  static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final S3Server s3;
    final RestCatalogServer rest;
    final TrinoServer trino;
    final Catalog catalog;
    final Catalog pgCatalog;
    final Map<String, String> pgProperties;
    final String pgUri;
    final Path rules;

    private Running(
        S3Server s3,
        RestCatalogServer rest,
        TrinoServer trino,
        Catalog catalog,
        Catalog pgCatalog,
        Map<String, String> pgProperties,
        String pgUri,
        Path rules) {
      this.s3 = s3;
      this.rest = rest;
      this.trino = trino;
      this.catalog = catalog;
      this.pgCatalog = pgCatalog;
      this.pgProperties = pgProperties;
      this.pgUri = pgUri;
      this.rules = rules;
    }

    static Running start() {
      S3Server s3 = new S3Server().start();
      RestCatalogServer rest = new RestCatalogServer(s3, "trino").start();
      TrinoServer trino = new TrinoServer();
      Catalog pgCatalog = null;
      Path rules = null;
      try {
        Map<String, String> iceberg = icebergOnRest(s3, rest);
        iceberg.put("iceberg.expire-snapshots.min-retention", "0s");
        iceberg.put("iceberg.remove-orphan-files.min-retention", "0s");
        trino.catalog(CATALOG, iceberg);
        trino.catalog(FLOORED_CATALOG, icebergOnRest(s3, rest));
        // Trino's file-based access control on one catalog: BLIND_USER may do nothing to any table
        rules = Files.createTempFile("trino-rules", ".json");
        Files.writeString(
            rules,
            "{\"tables\": [{\"user\": \"" + BLIND_USER + "\", \"privileges\": []},"
                + " {\"privileges\": [\"SELECT\", \"INSERT\", \"DELETE\", \"UPDATE\", \"OWNERSHIP\"]}]}");
        Map<String, String> guarded = new LinkedHashMap<>(iceberg);
        guarded.put("iceberg.security", "file");
        guarded.put("security.config-file", rules.toString());
        trino.catalog(GUARDED_CATALOG, guarded);
        Map<String, String> delta = deltaOnS3(s3);
        delta.put("delta.vacuum.min-retention", "0s");
        trino.catalog(DELTA_CATALOG, delta);
        trino.catalog(DELTA_FLOORED_CATALOG, deltaOnS3(s3));
        Map<String, String> pgProperties = null;
        String pgUri = null;
        PostgresServer pg = PostgresServer.ifAvailable().orElse(null);
        if (pg != null) {
          // JDBC catalogs scope tables by name and a server named by RESURFACER_TEST_PG_URL
          // outlives runs: a fresh name per run
          String name = "trino_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
          pgUri = pg.url();
          pgProperties = new LinkedHashMap<>(s3.clientProperties());
          pgProperties.put("jdbc.user", pg.user());
          pgProperties.put("jdbc.password", pg.password());
          pgProperties.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
          Map<String, String> props = new HashMap<>(pgProperties);
          props.put(CatalogProperties.URI, pg.url());
          props.put(CatalogProperties.WAREHOUSE_LOCATION, s3.warehouse(name));
          props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
          // ours first: it creates the catalog's tables in the database, which Trino expects to
          // exist
          pgCatalog = CatalogUtil.buildIcebergCatalog(name, props, null);
          trino.catalog(PG_CATALOG, icebergOnPostgres(s3, pg, name));
        }
        trino.start();
        System.out.println("Trino started in " + trino.startupMillis() + " ms");
        Map<String, String> props = new HashMap<>(rest.clientProperties());
        props.put(CatalogProperties.URI, rest.uri());
        props.put(CatalogProperties.WAREHOUSE_LOCATION, rest.warehouse());
        props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        props.put("cache-enabled", "false");
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        Catalog catalog = CatalogUtil.buildIcebergCatalog("rest", props, null);
        return new Running(s3, rest, trino, catalog, pgCatalog, pgProperties, pgUri, rules);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (RuntimeException e) {
        closeQuietly(pgCatalog);
        trino.close();
        rest.close();
        s3.close();
        throw e;
      }
    }

    /** Trino's Delta Lake connector on s3proxy, its file metastore in the same bucket. */
    static Map<String, String> deltaOnS3(S3Server s3) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("connector.name", "delta_lake");
      p.put("hive.metastore", "file");
      p.put("hive.metastore.catalog.dir", s3.warehouse("delta-metastore"));
      p.putAll(nativeS3(s3));
      return p;
    }

    /** Trino's Iceberg connector on the JDBC catalog {@code name} in PostgreSQL, its warehouse on s3proxy. */
    static Map<String, String> icebergOnPostgres(S3Server s3, PostgresServer pg, String name) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("connector.name", "iceberg");
      p.put("iceberg.catalog.type", "jdbc");
      p.put("iceberg.jdbc-catalog.catalog-name", name);
      p.put("iceberg.jdbc-catalog.driver-class", "org.postgresql.Driver");
      p.put("iceberg.jdbc-catalog.connection-url", pg.url());
      p.put("iceberg.jdbc-catalog.connection-user", pg.user());
      p.put("iceberg.jdbc-catalog.connection-password", pg.password());
      p.put("iceberg.jdbc-catalog.default-warehouse-dir", s3.warehouse(name));
      p.put("iceberg.expire-snapshots.min-retention", "0s");
      p.put("iceberg.remove-orphan-files.min-retention", "0s");
      p.putAll(nativeS3(s3));
      return p;
    }

    static Map<String, String> nativeS3(S3Server s3) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("fs.native-s3.enabled", "true");
      p.put("s3.endpoint", s3.endpoint());
      p.put("s3.region", S3Server.REGION);
      p.put("s3.path-style-access", "true");
      p.put("s3.aws-access-key", S3Server.ACCESS_KEY);
      p.put("s3.aws-secret-key", S3Server.SECRET_KEY);
      return p;
    }

    private static void closeQuietly(Object o) {
      try {
        if (o instanceof AutoCloseable closeable) {
          closeable.close();
        }
      } catch (Exception ignored) {
        // closing a client on the way out
      }
    }

    /** Trino's Iceberg connector on the REST catalog, its files on s3proxy through Trino's native S3 file system. */
    static Map<String, String> icebergOnRest(S3Server s3, RestCatalogServer rest) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("connector.name", "iceberg");
      p.put("iceberg.catalog.type", "rest");
      p.put("iceberg.rest-catalog.uri", rest.uri());
      p.put("iceberg.rest-catalog.warehouse", rest.warehouse());
      p.putAll(nativeS3(s3));
      return p;
    }

    @Override
    public void close() {
      closeQuietly(catalog);
      closeQuietly(pgCatalog);
      trino.close();
      try {
        Files.deleteIfExists(rules);
      } catch (IOException ignored) {
        // a temporary file
      }
      rest.close();
      s3.close();
    }
  }
}
