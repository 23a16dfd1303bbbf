package dev.resurfacer.iceberg.maintain;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Iceberg engine's handle for one table being maintained: what a custom
 * {@link dev.resurfacer.maintain.OperationExecutor} for Iceberg receives.
 *
 * @param name {@code namespace.table}
 */
public record IcebergTable(Catalog catalog, TableIdentifier identifier, Table table, String name,
    dev.resurfacer.storage.StorageFences fences) {

  /** A table whose orphan removal checks only its own catalog. */
  public IcebergTable(Catalog catalog, TableIdentifier identifier, Table table, String name) {
    this(catalog, identifier, table, name, null);
  }

  /**
   * The fences orphan removal must respect for this run: every engine's executor applies these, so a
   * remote engine never checks less than the local one would (null: this table's own catalog only).
   */
  public dev.resurfacer.storage.StorageFences fencesOr(dev.resurfacer.storage.StorageFences own) {
    return own != null ? own : fences;
  }
}
