package dev.resurfacer.iceberg.testing;

import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Real SQLite-backed Iceberg JDBC catalogs for tests, created with Iceberg's own {@link JdbcCatalog}
 * (not through our code), the way any other Iceberg writer would create them.
 */
public final class SqliteCatalogs {
  private SqliteCatalogs() {}

  public static String uri(Path dir) {
    return "jdbc:sqlite:" + dir.resolve("catalog.db");
  }

  public static String warehouse(Path dir) {
    return dir.resolve("warehouse").toString();
  }

  public static JdbcCatalog create(String name, Path dir) {
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    catalog.initialize(
        name,
        Map.of(
            CatalogProperties.URI, uri(dir),
            CatalogProperties.WAREHOUSE_LOCATION, warehouse(dir)));
    return catalog;
  }
}
