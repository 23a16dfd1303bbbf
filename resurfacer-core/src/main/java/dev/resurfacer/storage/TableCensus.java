package dev.resurfacer.storage;

import dev.resurfacer.config.CatalogConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * One table format's view of the configured catalogs, for {@link Neighbours}: found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.resurfacer.storage.TableCensus}).
 */
public interface TableCensus {
  /**
   * Every table of this format in {@code catalogs} (catalogs of other formats are ignored), except
   * those with one of {@code skip}'s identities; a table or catalog that cannot be read is an
   * {@link Neighbour#unreadable} entry, never left out.
   */
  default List<Neighbour> neighbours(
      List<CatalogConfig> catalogs, Path workingDir, Set<String> skip) {
    return neighbours(catalogs, workingDir, skip, new CensusMemo());
  }

  /**
   * As {@link #neighbours(List, Path, Set)}, reusing from {@code memo} what an earlier read found for a
   * table version that is still current; the catalogs are listed afresh, so a table that changed is read again.
   */
  List<Neighbour> neighbours(
      List<CatalogConfig> catalogs, Path workingDir, Set<String> skip, CensusMemo memo);

  /** Local files {@code catalog} keeps its own state in (a SQLite database and its side files), when it is of this format. */
  default List<Path> catalogFiles(CatalogConfig catalog) {
    return List.of();
  }
}
