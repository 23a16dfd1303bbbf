package dev.resurfacer.delta.table;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.log.Tombstone;
import dev.resurfacer.delta.log.Tombstones;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.storage.CensusMemo;
import dev.resurfacer.storage.Neighbour;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableCensus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Delta tables of the configured delta catalogs ({@code tables:} and every table found under
 * {@code discover:} roots) as {@link Neighbour}s: each owns its directory, and references every
 * file its current version reads and every file a commit still in its log removed — so a clone or a
 * converted table whose log names another table's files by absolute path is seen.
 */
public final class DeltaCensus implements TableCensus {
  /** A table whose root and log version {@code memo} has seen is taken from it: a commit makes a new version. */
  @Override
  public List<Neighbour> neighbours(
      List<CatalogConfig> catalogs, Path workingDir, Set<String> skip, CensusMemo memo) {
    List<Neighbour> out = new ArrayList<>();
    for (CatalogConfig catalog : catalogs) {
      if (!catalog.isDelta()) {
        continue;
      }
      Map<String, String> tables;
      try {
        tables = DeltaDiscovery.tables(catalog, workingDir);
      } catch (RuntimeException e) {
        out.add(Neighbour.unreadable(
            "the tables of delta catalog '" + catalog.name() + "'",
            Set.of(Neighbour.table(catalog.name(), "*")),
            String.valueOf(e.getMessage())));
        continue;
      }
      tables.forEach((name, location) -> {
        String label = name + " in catalog '" + catalog.name() + "'";
        String named = Neighbour.table(catalog.name(), name);
        if (skip.contains(named)) {
          return;
        }
        try (DeltaTable table =
            DeltaTables.open(name, location, workingDir, DeltaTables.settings(catalog))) {
          Set<String> ids = Set.of(named, Neighbour.root(table.storage().root()));
          if (ids.stream().anyMatch(skip::contains)) {
            return;
          }
          io.delta.kernel.Snapshot latest = table.latest();
          out.add(memo.at(
              label,
              table.storage().root().key() + "@" + latest.getVersion(),
              () -> new Neighbour(
                  label,
                  ids,
                  List.of(table.storage().root()),
                  referencedDirs(table, latest),
                  null)));
        } catch (RuntimeException e) {
          out.add(Neighbour.unreadable(label, Set.of(named), String.valueOf(e.getMessage())));
        }
      });
    }
    return out;
  }

  /** The directories of every file the table's log can still reach: the current version's, and those its commits removed. */
  static NavigableSet<String> referencedDirs(DeltaTable table) {
    return referencedDirs(table, table.latest());
  }

  private static NavigableSet<String> referencedDirs(
      DeltaTable table, io.delta.kernel.Snapshot latest) {
    NavigableSet<String> dirs = new TreeSet<>();
    // every identity of each path: a '..' after a link names two files, and either may be the one
    // read
    for (LiveFile f : LiveFiles.of(table, latest)) {
      add(dirs, f.identities());
      f.deletionVector().ifPresent(dv -> add(dirs, dv.identities()));
    }
    List<LogFile> commits = DeltaLogFiles.list(table).of(LogFile.Kind.COMMIT);
    for (Tombstone t : Tombstones.read(table, commits)) {
      add(dirs, t.identities());
      t.deletionVector().ifPresent(dv -> add(dirs, dv.identities()));
    }
    return dirs;
  }

  private static void add(NavigableSet<String> dirs, List<StoredFile> files) {
    files.forEach(f -> dirs.add(f.parent().key()));
  }
}
