package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.catalog.CatalogCensus;
import dev.resurfacer.storage.StoredFile;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Fence: a file that another table references but this one does not looks like an orphan here. For
 * every table of the census this index holds the directories it owns now (location,
 * write.data.path, write.metadata.path) and every directory holding a file that any of its
 * snapshots, metadata files or statistics references — so a table that once wrote into this one's
 * directory and moved away, or sits there under another catalog name or another spelling, is seen.
 * All in canonical form. Built once and asked once per table, so {@code maintain} reads every table's
 * manifests once per run, not once per table.
 */
public final class NeighbourIndex {
  private record Known(String catalogName, TableIdentifier identifier, String label, String metadataKey,
      List<StoredFile> roots, NavigableSet<String> referencedDirs, String error) {}

  private final List<Known> tables;

  private NeighbourIndex(List<Known> tables) {
    this.tables = tables;
  }

  /** Reads every table of the census. */
  public static NeighbourIndex build(CatalogCensus census) {
    return build(census, null, null);
  }

  /**
   * Reads every table of the census but the one named {@code catalogName}.{@code self}, which the check
   * skips anyway: a run on one table does not walk its own manifests twice.
   */
  static NeighbourIndex build(CatalogCensus census, String catalogName, TableIdentifier self) {
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    List<Known> out = new ArrayList<>();
    for (CatalogCensus.Entry e : census.entries()) {
      if (self != null && e.catalogName().equals(catalogName) && e.identifier().equals(self)) {
        continue;
      }
      if (e.error() != null) {
        out.add(new Known(e.catalogName(), e.identifier(), e.label(), null, List.of(), new TreeSet<>(), e.error()));
        continue;
      }
      if (e.metadata() == null && e.location() != null) {
        try {
          out.add(new Known(e.catalogName(), e.identifier(), e.label(), null, List.of(resolver.resolve(e.location())),
              new TreeSet<>(), null));
        } catch (SafetyRefusal unresolvable) {
          out.add(new Known(e.catalogName(), e.identifier(), e.label(), null, List.of(), new TreeSet<>(),
              unresolvable.getMessage()));
        }
        continue;
      }
      try {
        // directory keys, sorted: "is any of them in this scope" is a range lookup per root, not a scan of all
        NavigableSet<String> dirs = new TreeSet<>();
        new ReachableFiles(e.io()).walk(e.metadata(), (category, location) ->
            resolver.resolveAll(location).forEach(f -> dirs.add(f.parent().key())));
        List<StoredFile> roots = Scope.neighbourRoots(e.metadata(), resolver);
        out.add(new Known(e.catalogName(), e.identifier(), e.label(),
            resolver.resolve(e.metadata().metadataFileLocation()).key(), roots, dirs, null));
      } catch (RuntimeException ex) {
        out.add(new Known(e.catalogName(), e.identifier(), e.label(), null, List.of(), new TreeSet<>(),
            dev.resurfacer.iceberg.catalog.Catalogs.rootMessage(ex)));
      }
    }
    return new NeighbourIndex(List.copyOf(out));
  }

  /**
   * Throws {@link SafetyRefusal} when any other table overlaps {@code scope} or references a file in
   * it; returns how many other tables were checked. The table itself is recognised by its name in
   * its catalog or by its current metadata file (the same table registered twice).
   */
  int requireNothingInside(String catalogName, TableIdentifier self, Set<String> selfMetadataKeys, Scope scope) {
    int checked = 0;
    for (Known t : tables) {
      if ((t.catalogName().equals(catalogName) && t.identifier().equals(self))
          || (t.metadataKey() != null && selfMetadataKeys.contains(t.metadataKey()))) {
        continue;
      }
      checked++;
      if (t.error() != null) {
        throw new SafetyRefusal("scope: cannot read table " + t.label() + " to check that none of its files lies in this table's"
            + " storage (" + t.error() + ")");
      }
      for (StoredFile root : t.roots()) {
        if (scope.overlaps(root)) {
          throw new SafetyRefusal("scope: table " + t.label() + " lives at " + root + ", which overlaps this table's "
              + String.join(", ", scope.keys()) + "; its files would look unreferenced here");
        }
      }
      for (String root : scope.keys()) {
        String dir = firstAtOrBelow(t.referencedDirs(), root);
        if (dir != null) {
          throw new SafetyRefusal("scope: table " + t.label() + " references files in " + dir
              + ", inside this table's storage; they would look unreferenced here");
        }
      }
    }
    return checked;
  }

  /** The first key that is {@code root} or lies below it (StoredFile.contains on keys: same prefix, then a '/' boundary). */
  private static String firstAtOrBelow(NavigableSet<String> keys, String root) {
    if (keys.contains(root)) {
      return root;
    }
    String below = root.endsWith("/") ? root : root + "/";
    String next = keys.ceiling(below);
    return next != null && next.startsWith(below) ? next : null;
  }
}
