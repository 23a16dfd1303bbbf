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
public record IcebergTable(
    Catalog catalog,
    TableIdentifier identifier,
    Table table,
    String name,
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

  /**
   * The other tables of every format an expiry of this table must not take a file from, with this
   * table's identities among them; null without fences (nothing beyond the table is read).
   */
  public dev.resurfacer.iceberg.expire.SnapshotExpiry.OtherTables otherTables(
      dev.resurfacer.storage.StorageFences own) {
    dev.resurfacer.storage.StorageFences f = fencesOr(own);
    if (f == null) {
      return null;
    }
    java.util.Set<String> self =
        dev.resurfacer.iceberg.orphans.IcebergCensus.identities(catalog, identifier, table);
    return new dev.resurfacer.iceberg.expire.SnapshotExpiry.OtherTables(
        () -> f.neighbours(self), self);
  }
}
