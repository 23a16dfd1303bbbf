package dev.resurfacer.trino.testing;

import dev.resurfacer.iceberg.testing.RestCatalogServer;
import dev.resurfacer.iceberg.testing.S3Server;
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
 * tables seconds old) and {@code iceberg_floored} on the same REST catalog with Trino's default 7-day
 * floors, for the refusal tests.
 */
public final class TrinoLake implements BeforeAllCallback {
  public static final String CATALOG = "iceberg";
  public static final String FLOORED_CATALOG = "iceberg_floored";
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TrinoLake.class);

  private Running running;

  public static TrinoLake shared() {
    return new TrinoLake();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    running = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class);
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

  /** A JDBC connection to Trino as {@code user}, default catalog {@code catalog}. */
  public Connection connect(String catalog) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "resurfacer-test");
    Connection c = DriverManager.getConnection(trino().jdbcUrl() + "/" + catalog, p);
    return c;
  }

  public void sql(String statement) {
    try (Connection c = connect(CATALOG); Statement s = c.createStatement()) {
      s.execute(statement);
    } catch (SQLException e) {
      throw new IllegalStateException(statement + ": " + e.getMessage(), e);
    }
  }

  /**
   * Rows as Trino reads them, type-tagged ({@code column:trinoType=value}) and sorted: the second
   * reader next to Iceberg's own ({@code Content.of}).
   */
  public List<String> rows(String query) {
    try (Connection c = connect(CATALOG); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
      ResultSetMetaData md = rs.getMetaData();
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          b.append(i > 1 ? ", " : "").append(md.getColumnName(i)).append(':').append(md.getColumnTypeName(i)).append('=')
              .append(v == null ? "null" : v instanceof byte[] bytes ? java.util.HexFormat.of().formatHex(bytes) : v.toString());
        }
        out.add(b.append('}').toString());
      }
      out.sort(null);
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  public long count(String query) {
    try (Connection c = connect(CATALOG); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
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

    private Running(S3Server s3, RestCatalogServer rest, TrinoServer trino, Catalog catalog) {
      this.s3 = s3;
      this.rest = rest;
      this.trino = trino;
      this.catalog = catalog;
    }

    static Running start() {
      S3Server s3 = new S3Server().start();
      RestCatalogServer rest = new RestCatalogServer(s3, "trino").start();
      TrinoServer trino = new TrinoServer();
      try {
        Map<String, String> iceberg = icebergOnRest(s3, rest);
        iceberg.put("iceberg.expire-snapshots.min-retention", "0s");
        iceberg.put("iceberg.remove-orphan-files.min-retention", "0s");
        trino.catalog(CATALOG, iceberg);
        trino.catalog(FLOORED_CATALOG, icebergOnRest(s3, rest));
        trino.start();
        System.out.println("Trino started in " + trino.startupMillis() + " ms");
        Map<String, String> props = new HashMap<>(rest.clientProperties());
        props.put(CatalogProperties.URI, rest.uri());
        props.put(CatalogProperties.WAREHOUSE_LOCATION, rest.warehouse());
        props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        props.put("cache-enabled", "false");
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        Catalog catalog = CatalogUtil.buildIcebergCatalog("rest", props, null);
        return new Running(s3, rest, trino, catalog);
      } catch (RuntimeException e) {
        trino.close();
        rest.close();
        s3.close();
        throw e;
      }
    }

    /** Trino's Iceberg connector on the REST catalog, its files on s3proxy through Trino's native S3 file system. */
    static Map<String, String> icebergOnRest(S3Server s3, RestCatalogServer rest) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("connector.name", "iceberg");
      p.put("iceberg.catalog.type", "rest");
      p.put("iceberg.rest-catalog.uri", rest.uri());
      p.put("iceberg.rest-catalog.warehouse", rest.warehouse());
      p.put("fs.native-s3.enabled", "true");
      p.put("s3.endpoint", s3.endpoint());
      p.put("s3.region", S3Server.REGION);
      p.put("s3.path-style-access", "true");
      p.put("s3.aws-access-key", S3Server.ACCESS_KEY);
      p.put("s3.aws-secret-key", S3Server.SECRET_KEY);
      return p;
    }

    @Override
    public void close() {
      try {
        if (catalog instanceof AutoCloseable closeable) {
          closeable.close();
        }
      } catch (Exception ignored) {
        // the servers go next either way
      }
      trino.close();
      rest.close();
      s3.close();
    }
  }
}
