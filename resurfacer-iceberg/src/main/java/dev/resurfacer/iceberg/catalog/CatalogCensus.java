package dev.resurfacer.iceberg.catalog;

import dev.resurfacer.config.CatalogConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;

/**
 * Every table a set of catalogs can show, with its current metadata: what the orphan fence checks a
 * table's scope against. A JDBC catalog is read straight from its database, so tables registered
 * under any catalog name in that database are counted, not only those of the name configured; other
 * catalogs are walked namespace by namespace. A table that cannot be read is kept as an entry with
 * its error — its files are unknown, so a fence that needs them must refuse.
 */
public final class CatalogCensus implements AutoCloseable {
  /**
   * One table.
   *
   * @param catalogName the catalog name it is registered under
   * @param metadataLocation its current metadata file, null when {@code error} is set
   * @param loaded its current metadata when the catalog already loaded it, else null ({@link #metadata()} reads it)
   * @param io what reads its metadata
   */
  public record Entry(
      String catalogName,
      TableIdentifier identifier,
      String metadataLocation,
      TableMetadata loaded,
      FileIO io,
      String error) {
    public String label() {
      return Catalogs.nameOf(identifier) + " in catalog '" + catalogName + "'";
    }

    /** Its current metadata, read now unless the catalog loaded it: a census that knows this version need not parse it. */
    public TableMetadata metadata() {
      return loaded != null ? loaded : TableMetadataParser.read(io, metadataLocation);
    }
  }

  private final List<Entry> entries;
  private final List<AutoCloseable> opened;

  private CatalogCensus(List<Entry> entries, List<AutoCloseable> opened) {
    this.entries = List.copyOf(entries);
    this.opened = List.copyOf(opened);
  }

  public List<Entry> entries() {
    return entries;
  }

  /** The tables of one open catalog, walked through its namespaces; the catalog stays open after {@link #close()}. */
  public static CatalogCensus of(Catalog catalog) {
    List<Entry> out = new ArrayList<>();
    walk(catalog, out);
    return new CatalogCensus(out, List.of());
  }

  /**
   * The tables of every configured catalog; JDBC catalogs with every catalog name in their database.
   * The catalogs and FileIOs it opens stay open, so the entries' metadata can be walked, until {@link #close()}.
   */
  public static CatalogCensus of(List<CatalogConfig> configs) {
    Map<String, Entry> out = new LinkedHashMap<>();
    List<AutoCloseable> opened = new ArrayList<>();
    try {
      for (CatalogConfig config : configs) {
        List<Entry> found = new ArrayList<>();
        if (config.isDelta()) {
          continue; // Delta tables are the Delta census's (dev.resurfacer.storage.TableCensus)
        } else if ("jdbc".equals(config.type()) && config.uri() != null) {
          readJdbc(config, found, opened);
        } else {
          Catalog catalog = Catalogs.open(config);
          if (catalog instanceof AutoCloseable c) {
            opened.add(c);
          }
          walk(catalog, found);
        }
        for (Entry e : found) {
          String where = e.metadataLocation() == null ? "" : e.metadataLocation();
          out.putIfAbsent(e.label() + "\u0000" + where, e);
        }
      }
    } catch (RuntimeException e) {
      opened.forEach(CatalogCensus::closeQuietly);
      throw e;
    }
    return new CatalogCensus(List.copyOf(out.values()), opened);
  }

  @Override
  public void close() {
    opened.forEach(CatalogCensus::closeQuietly);
  }

  /** Local files a catalog keeps its own state in (a SQLite database and its side files). */
  public static List<Path> ownFiles(CatalogConfig config) {
    Path db = Catalogs.sqliteFile(config.uri());
    if (db == null) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    out.add(db);
    for (String suffix : List.of("-wal", "-shm", "-journal")) {
      out.add(db.resolveSibling(db.getFileName() + suffix));
    }
    return out;
  }

  private static void walk(Catalog catalog, List<Entry> out) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw new dev.resurfacer.SafetyRefusal("scope: catalog '" + catalog.name()
          + "' cannot list namespaces, so tables sharing this table's storage cannot be ruled out");
    }
    Deque<Namespace> todo = new ArrayDeque<>(namespaces.listNamespaces());
    while (!todo.isEmpty()) {
      Namespace ns = todo.pop();
      try {
        todo.addAll(namespaces.listNamespaces(ns));
      } catch (NoSuchNamespaceException | UnsupportedOperationException e) {
        // a flat catalog (or a namespace dropped meanwhile) has no children to walk
      }
      List<TableIdentifier> tables;
      try {
        tables = catalog.listTables(ns);
      } catch (NoSuchNamespaceException e) {
        continue;
      }
      for (TableIdentifier id : tables) {
        try {
          Table t = catalog.loadTable(id);
          if (!(t instanceof HasTableOperations ops)) {
            out.add(new Entry(catalog.name(), id, null, null, null, "its metadata is not exposed"));
            continue;
          }
          TableMetadata current = ops.operations().current();
          out.add(
              new Entry(catalog.name(), id, current.metadataFileLocation(), current, t.io(), null));
        } catch (NoSuchTableException e) {
          // dropped between listing and loading
        } catch (RuntimeException e) {
          out.add(new Entry(catalog.name(), id, null, null, null, Catalogs.rootMessage(e)));
        }
      }
    }
  }

  /** Iceberg's JDBC catalog keeps one row per table in {@code iceberg_tables}, keyed by catalog name. */
  private static void readJdbc(CatalogConfig config, List<Entry> out, List<AutoCloseable> opened) {
    Map<String, String> props = Catalogs.properties(config);
    Properties jdbc = new Properties();
    props.forEach((k, v) -> {
      if (k.startsWith("jdbc.")) {
        jdbc.put(k.substring("jdbc.".length()), v);
      }
    });
    FileIO io = CatalogUtil.loadFileIO(
        props.get(org.apache.iceberg.CatalogProperties.FILE_IO_IMPL),
        props,
        Catalogs.localHadoopConf());
    opened.add(io);
    List<String[]> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(config.uri(), jdbc);
        Statement s = c.createStatement()) {
      try (ResultSet rs = tableRows(s)) {
        while (rs.next()) {
          rows.add(
              new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
        }
      }
    } catch (SQLException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("no such table") || m.contains("does not exist")) {
        return; // a catalog database no table was ever created in
      }
      throw new dev.resurfacer.SafetyRefusal("scope: cannot read the tables of catalog '"
          + config.name() + "' (" + Catalogs.rootMessage(e)
          + "), so tables sharing this table's storage cannot be ruled out");
    }
    for (String[] row : rows) {
      TableIdentifier id = TableIdentifier.of(Namespace.of(row[1].split("\\.")), row[2]);
      if (row[3] == null || row[3].isBlank()) {
        out.add(new Entry(row[0], id, null, null, null, "its catalog row names no metadata file"));
      } else {
        out.add(new Entry(row[0], id, row[3], null, io, null));
      }
    }
  }

  private static ResultSet tableRows(Statement s) throws SQLException {
    String columns =
        "SELECT catalog_name, table_namespace, table_name, metadata_location FROM iceberg_tables";
    try {
      return s.executeQuery(columns + " WHERE iceberg_type IS NULL OR iceberg_type = 'TABLE'");
    } catch (SQLException noTypeColumn) {
      return s.executeQuery(columns); // a database from before views: every row is a table
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // the census is complete; a failing close changes nothing in it
    }
  }
}
