package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

/** A catalog opened for one command and the table it names; closing it closes the catalog. */
record OpenTable(Catalog catalog, Table table, String name, CatalogConfig config)
    implements AutoCloseable {
  static OpenTable open(CatalogOptions options, CliContext ctx, String name) {
    var config = options.resolve(ctx);
    Catalogs.parseIdentifier(name);
    Catalog catalog = Catalogs.open(config);
    try {
      return new OpenTable(catalog, Catalogs.loadTable(catalog, name), name, config);
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw e;
    }
  }

  @Override
  public void close() {
    closeQuietly(catalog);
  }

  private static void closeQuietly(Catalog catalog) {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception ignored) {
        // the command's result is already decided; a failing close changes nothing for the user
      }
    }
  }
}
