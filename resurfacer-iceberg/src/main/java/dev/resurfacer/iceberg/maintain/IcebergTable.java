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
public record IcebergTable(Catalog catalog, TableIdentifier identifier, Table table, String name) {}
