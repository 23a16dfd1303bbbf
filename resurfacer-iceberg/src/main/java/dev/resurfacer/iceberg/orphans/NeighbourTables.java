package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Fence: another table's files inside this table's scope (or this table inside another's) would be
 * listed and, since this table does not reference them, deleted. Every table the catalog knows is
 * compared by normalized location before anything is listed.
 */
final class NeighbourTables {
  private NeighbourTables() {}

  /** Returns how many other tables were checked; throws {@link SafetyRefusal} on an overlap. */
  static int requireNoOverlap(Catalog catalog, TableIdentifier self, Scope scope) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw new SafetyRefusal("scope: catalog '" + catalog.name()
          + "' cannot list namespaces, so tables sharing this table's location cannot be ruled out");
    }
    int checked = 0;
    Deque<Namespace> todo = new ArrayDeque<>(namespaces.listNamespaces());
    while (!todo.isEmpty()) {
      Namespace ns = todo.pop();
      try {
        todo.addAll(namespaces.listNamespaces(ns));
      } catch (NoSuchNamespaceException | UnsupportedOperationException e) {
        // a flat catalog (or a namespace dropped meanwhile) has no children to walk
      }
      java.util.List<TableIdentifier> tables;
      try {
        tables = catalog.listTables(ns);
      } catch (NoSuchNamespaceException e) {
        continue;
      }
      for (TableIdentifier id : tables) {
        if (id.equals(self)) {
          continue;
        }
        Table other;
        try {
          other = catalog.loadTable(id);
        } catch (NoSuchTableException e) {
          continue;
        } catch (RuntimeException e) {
          // an unreadable table's location is unknown, so it could lie inside ours
          throw new SafetyRefusal("scope: cannot read table " + id + " to check that it does not overlap this table ("
              + dev.resurfacer.iceberg.catalog.Catalogs.rootMessage(e) + ")");
        }
        checked++;
        TableMetadata meta = other instanceof HasTableOperations ops ? ops.operations().current() : null;
        if (meta == null) {
          throw new SafetyRefusal("scope: cannot read the locations of table " + id);
        }
        Scope theirs = Scope.of(meta);
        for (StorageUri mine : scope.roots()) {
          for (StorageUri their : theirs.roots()) {
            if (mine.contains(their) || their.contains(mine)) {
              throw new SafetyRefusal("scope: table " + id + " lives at " + their + ", which overlaps this table's "
                  + mine + "; its files would look unreferenced here");
            }
          }
        }
      }
    }
    return checked;
  }
}
