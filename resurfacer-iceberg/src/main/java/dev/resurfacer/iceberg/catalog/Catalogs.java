package dev.resurfacer.iceberg.catalog;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.storage.StorageFileIO;
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
   * orphans to every tool that lists the table's directory), setting permissions without a
   * process ({@link NioLocalFileSystem}).
   */
  public static Configuration localHadoopConf() {
    // a copy of one loaded configuration: a new Configuration parses core-default.xml again, which
    // cost more than a small table's whole expiry when every census read opened its catalogs'
    // FileIO
    return new Configuration(LocalConf.LOADED);
  }

  /** The holder idiom: loaded once, on first use; callers only ever get copies. */
  private static final class LocalConf {
    static final Configuration LOADED = load();

    private static Configuration load() {
      Configuration conf = new Configuration();
      conf.set("fs.file.impl", NioLocalFileSystem.class.getName());
      conf.setBoolean("fs.file.impl.disable.cache", true);
      conf.get("fs.file.impl"); // loads the default resources now, so every copy starts from loaded
      // properties
      return conf;
    }
  }

  public static Catalog open(CatalogConfig config) {
    if (config.isDelta()) {
      throw new UsageException("catalog '" + config.name()
          + "' is a delta catalog: name one of its tables, not the catalog");
    }
    Map<String, String> props = properties(config);
    if (config.uri() != null && config.uri().startsWith("jdbc:sqlite:")) {
      createSqliteParent(config.uri());
    }
    try {
      return CatalogUtil.buildIcebergCatalog(config.name(), props, localHadoopConf());
    } catch (RuntimeException e) {
      throw new UsageException(
          "cannot open catalog '" + config.name() + "' (" + config.type() + " at "
              + config.redactedUri() + "): " + rootMessage(e),
          e);
    }
  }

  /** The Iceberg catalog properties a configuration stands for. */
  static Map<String, String> properties(CatalogConfig config) {
    Map<String, String> props = new HashMap<>(config.properties());
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, config.type());
    if (config.uri() != null) {
      props.put(CatalogProperties.URI, config.uri());
    }
    if (config.warehouse() != null) {
      props.put(CatalogProperties.WAREHOUSE_LOCATION, normalizeWarehouse(config.warehouse()));
    }
    // ResolvingFileIO picks S3FileIO for s3://, ADLSFileIO for the Azure schemes and HadoopFileIO
    // for
    // local paths, so one catalog can serve all without the user naming an implementation.
    props.putIfAbsent(
        CatalogProperties.FILE_IO_IMPL,
        dev.resurfacer.iceberg.storage.StorageFileIO.class.getName());
    return props;
  }

  public static Table loadTable(Catalog catalog, String name) {
    TableIdentifier id = parseIdentifier(name);
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      throw new UsageException(
          "table " + name + " does not exist in catalog '" + catalog.name() + "'");
    } catch (UsageException e) {
      throw e;
    } catch (StorageFileIO.MissingSdk e) {
      throw new UsageException(e.getMessage());
    } catch (RuntimeException e) {
      throw new UsageException(
          "cannot load table " + name + " from catalog '" + catalog.name() + "': " + rootMessage(e),
          e);
    }
  }

  /** {@code namespace.table}, parts quoted as {@link dev.resurfacer.names.Identifiers} describes. */
  public static TableIdentifier parseIdentifier(String name) {
    dev.resurfacer.names.TableName n = dev.resurfacer.names.TableName.parse(name);
    return TableIdentifier.of(
        org.apache.iceberg.catalog.Namespace.of(n.namespace().toArray(String[]::new)), n.name());
  }

  /** The name verbs, globs, policies and reports use for {@code id}: {@link #parseIdentifier} reads it back. */
  public static String nameOf(TableIdentifier id) {
    return new dev.resurfacer.names.TableName(java.util.List.of(id.namespace().levels()), id.name())
        .toString();
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
    Path db = sqliteFile(uri);
    if (db == null) {
      return;
    }
    Path parent = db.getParent();
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new UsageException("cannot create directory " + parent + " for the SQLite catalog");
    }
  }

  /** The database file of a {@code jdbc:sqlite:} URI, or null for an in-memory database or another driver. */
  static Path sqliteFile(String uri) {
    if (uri == null || !uri.startsWith("jdbc:sqlite:")) {
      return null;
    }
    String file = uri.substring("jdbc:sqlite:".length());
    int q = file.indexOf('?');
    if (q >= 0) {
      file = file.substring(0, q);
    }
    if (file.startsWith("file:")) {
      // SQLite reads a file: name as a URI: an empty or 'localhost' authority, then a
      // percent-encoded path
      file = file.substring(5);
      if (file.startsWith("//")) {
        int slash = file.indexOf('/', 2);
        String authority = slash < 0 ? file.substring(2) : file.substring(2, slash);
        if (!authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
          return null; // SQLite refuses any other host
        }
        file = slash < 0 ? "" : file.substring(slash);
      }
      int hash = file.indexOf('#');
      if (hash >= 0) {
        file = file.substring(0, hash);
      }
      file = percentDecoded(file);
    }
    if (file.isEmpty() || file.startsWith(":memory:")) {
      return null;
    }
    return Path.of(file).toAbsolutePath();
  }

  private static String percentDecoded(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%'
          && i + 2 < s.length()
          && Character.digit(s.charAt(i + 1), 16) >= 0
          && Character.digit(s.charAt(i + 2), 16) >= 0) {
        out.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
        i += 2;
      } else {
        int cp = s.codePointAt(i);
        byte[] b =
            new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.write(b, 0, b.length);
        i += Character.charCount(cp) - 1;
      }
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
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
