package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.CatalogCensus;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.storage.CensusMemo;
import dev.resurfacer.storage.Neighbour;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableCensus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Iceberg tables of the configured catalogs as {@link Neighbour}s: for each, the directories it
 * owns now (location, write.data.path, write.metadata.path) and every directory holding a file that
 * any of its snapshots, metadata files or statistics references — so a table that once wrote into
 * another's directory and moved away, or sits there under another catalog name or another spelling,
 * is seen. Delta catalogs are the Delta census's.
 */
public final class IcebergCensus implements TableCensus {
  @Override
  public List<Neighbour> neighbours(
      List<CatalogConfig> catalogs, Path workingDir, Set<String> skip, CensusMemo memo) {
    List<CatalogConfig> iceberg = catalogs.stream()
        .filter(c -> !c.isDelta())
        .filter(IcebergCensus::mayHoldTables)
        .toList();
    try (CatalogCensus census = CatalogCensus.of(iceberg)) {
      return read(census, skip, memo);
    }
  }

  @Override
  public List<Path> catalogFiles(CatalogConfig catalog) {
    return catalog.isDelta() ? List.of() : CatalogCensus.ownFiles(catalog);
  }

  /** A SQLite catalog whose database does not exist holds no table (and opening it would create the file). */
  private static boolean mayHoldTables(CatalogConfig c) {
    List<Path> own = CatalogCensus.ownFiles(c);
    return own.isEmpty() || java.nio.file.Files.exists(own.get(0));
  }

  /** Every table of {@code census} but those with one of {@code skip}'s identities. */
  static List<Neighbour> read(CatalogCensus census, Set<String> skip) {
    return read(census, skip, new CensusMemo());
  }

  /**
   * As {@link #read(CatalogCensus, Set)}; a table whose current metadata file {@code memo} has seen
   * is taken from it (a metadata file never changes: a commit writes a new one).
   */
  static List<Neighbour> read(CatalogCensus census, Set<String> skip, CensusMemo memo) {
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    List<Neighbour> out = new ArrayList<>();
    for (CatalogCensus.Entry e : census.entries()) {
      String named = Neighbour.table(e.catalogName(), e.identifier().toString());
      if (e.error() != null) {
        out.add(Neighbour.unreadable(e.label(), Set.of(named), e.error()));
        continue;
      }
      if (skip.contains(named)) {
        continue;
      }
      Neighbour n = memo.at(e.label(), e.metadataLocation(), () -> readOne(e, named, resolver));
      if (n.identities().stream().noneMatch(skip::contains)) {
        out.add(n);
      }
    }
    return out;
  }

  private static Neighbour readOne(
      CatalogCensus.Entry e, String named, StoredFile.Resolver resolver) {
    Set<String> ids = new HashSet<>();
    ids.add(named);
    try {
      ids.add(Neighbour.metadata(resolver.resolve(e.metadataLocation())));
      org.apache.iceberg.TableMetadata metadata = e.metadata();
      NavigableSet<String> dirs = new TreeSet<>();
      dev.resurfacer.iceberg.metadata.MetadataWalker.pathsOnly(e.io())
          .walk(
              metadata,
              (kind, location, size) ->
                  resolver.resolveAll(location).forEach(f -> dirs.add(f.parent().key())));
      return new Neighbour(e.label(), ids, Scope.neighbourRoots(metadata, resolver), dirs, null);
    } catch (RuntimeException ex) {
      return Neighbour.unreadable(e.label(), ids, Catalogs.rootMessage(ex));
    }
  }

  /** The identities an Iceberg table of a run goes by: its name in its catalog and its current metadata file. */
  static Set<String> identities(String catalogName, String identifier, StoredFile metadataFile) {
    return Set.of(Neighbour.table(catalogName, identifier), Neighbour.metadata(metadataFile));
  }

  /** The identities of {@code table}, registered as {@code identifier} in {@code catalog}, as it is now. */
  public static Set<String> identities(
      org.apache.iceberg.catalog.Catalog catalog,
      org.apache.iceberg.catalog.TableIdentifier identifier,
      org.apache.iceberg.Table table) {
    String metadata = ((org.apache.iceberg.HasTableOperations) table)
        .operations()
        .current()
        .metadataFileLocation();
    return identities(
        catalog.name(), identifier.toString(), new StoredFile.Resolver().resolve(metadata));
  }
}
