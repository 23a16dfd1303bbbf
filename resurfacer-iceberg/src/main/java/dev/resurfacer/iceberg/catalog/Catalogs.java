package dev.resurfacer.iceberg.catalog;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** Opens Iceberg catalogs from a {@link CatalogConfig}. */
public final class Catalogs {
  private Catalogs() {}

  /**
   * A Hadoop configuration that reads and writes local files without a cluster: the raw local
   * file system, so no {@code .crc} side files appear next to table files (they would look like
   * orphans to every tool that lists the table's directory).
   */
  public static Configuration localHadoopConf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  public static Catalog open(CatalogConfig config) {
    if (config.isDelta()) {
      throw new UsageException("catalog '" + config.name() + "' is a delta catalog: name one of its tables, not the catalog");
    }
    Map<String, String> props = new HashMap<>(config.properties());
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, config.type());
    if (config.uri() != null) {
      props.put(CatalogProperties.URI, config.uri());
    }
    if (config.warehouse() != null) {
      props.put(CatalogProperties.WAREHOUSE_LOCATION, normalizeWarehouse(config.warehouse()));
    }
    // ResolvingFileIO picks S3FileIO for s3:// and HadoopFileIO for local paths, so one catalog
    // can serve both without the user naming an implementation.
    props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.io.ResolvingFileIO");
    if (config.uri() != null && config.uri().startsWith("jdbc:sqlite:")) {
      createSqliteParent(config.uri());
    }
    try {
      return CatalogUtil.buildIcebergCatalog(config.name(), props, localHadoopConf());
    } catch (RuntimeException e) {
      throw new UsageException("cannot open catalog '" + config.name() + "' (" + config.type() + " at "
          + config.redactedUri() + "): " + rootMessage(e), e);
    }
  }

  public static Table loadTable(Catalog catalog, String name) {
    TableIdentifier id = parseIdentifier(name);
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      throw new UsageException("table " + name + " does not exist in catalog '" + catalog.name() + "'");
    } catch (UsageException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new UsageException("cannot load table " + name + " from catalog '" + catalog.name() + "': " + rootMessage(e), e);
    }
  }

  public static TableIdentifier parseIdentifier(String name) {
    if (name == null || !name.contains(".") || name.startsWith(".") || name.endsWith(".")) {
      throw new UsageException("table must be written namespace.table (got '" + name + "')");
    }
    return TableIdentifier.parse(name);
  }

  /** A local warehouse is given as a path; Iceberg wants an absolute location. */
  static String normalizeWarehouse(String warehouse) {
    if (warehouse.contains("://") || warehouse.startsWith("file:")) {
      return warehouse;
    }
    Path p = Path.of(warehouse).toAbsolutePath().normalize();
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new UsageException("cannot create warehouse directory " + p);
    }
    return p.toString();
  }

  private static void createSqliteParent(String uri) {
    String file = uri.substring("jdbc:sqlite:".length());
    int q = file.indexOf('?');
    if (q >= 0) {
      file = file.substring(0, q);
    }
    if (file.startsWith("file:")) {
      file = file.substring(5);
    }
    if (file.isEmpty() || file.startsWith(":memory:")) {
      return;
    }
    Path parent = Path.of(file).toAbsolutePath().getParent();
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new UsageException("cannot create directory " + parent + " for the SQLite catalog");
    }
  }

  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.lines().findFirst().orElse(m);
  }
}
