package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.CatalogCensus;
import java.nio.file.Path;
import org.apache.iceberg.catalog.TableIdentifier;
import java.util.ArrayList;
import java.util.List;

/**
 * What orphan removal must respect beyond the table itself, shared by every table of a run: the
 * tables of every catalog in use (their index is built on first use, once per run) and the files
 * that are never listed nor deleted (SQLite catalogs and their side files, the configuration file).
 */
public final class OrphanFences {
  private final List<CatalogConfig> catalogs;
  private final List<String> protectedLocations;
  private final boolean shareIndex;
  private NeighbourIndex index;

  private OrphanFences(List<CatalogConfig> catalogs, List<String> protectedLocations, boolean shareIndex) {
    this.catalogs = List.copyOf(catalogs);
    this.protectedLocations = List.copyOf(protectedLocations);
    this.shareIndex = shareIndex;
  }

  /**
   * The same fences for a long-running process ({@code serve}): every removal reads the catalogs
   * afresh, since a table created or a file referenced after the first run must still be seen.
   */
  public OrphanFences rereadEachRun() {
    return new OrphanFences(catalogs, protectedLocations, false);
  }

  /** Fences over {@code catalogs}, protecting their own files and {@code configFile} (may be null). */
  public static OrphanFences forCatalogs(List<CatalogConfig> catalogs, Path configFile) {
    List<String> protect = new ArrayList<>();
    for (CatalogConfig c : catalogs) {
      CatalogCensus.ownFiles(c).forEach(p -> protect.add(p.toString()));
    }
    if (configFile != null) {
      protect.add(configFile.toAbsolutePath().toString());
    }
    return new OrphanFences(catalogs, protect, true);
  }

  /** The neighbour index, built by the first caller and shared after: one per run for {@code maintain}. */
  public synchronized NeighbourIndex neighbours() {
    if (!shareIndex) {
      try (CatalogCensus census = CatalogCensus.of(catalogs)) {
        return NeighbourIndex.build(census);
      }
    }
    if (index == null) {
      try (CatalogCensus census = CatalogCensus.of(catalogs)) {
        index = NeighbourIndex.build(census);
      }
    }
    return index;
  }

  public List<String> protectedLocations() {
    return protectedLocations;
  }

  /** Applies both fences to a removal, with the shared index (for runs over many tables). */
  public OrphanRemoval applyTo(OrphanRemoval removal) {
    return removal.neighbours(neighbours()).protect(protectedLocations);
  }

  /** Applies both fences to the one removal of a run, with an index that does not read that table itself. */
  public OrphanRemoval applyToOnly(OrphanRemoval removal, String catalogName, TableIdentifier self) {
    try (CatalogCensus census = CatalogCensus.of(catalogs)) {
      return removal.neighbours(NeighbourIndex.build(census, catalogName, self)).protect(protectedLocations);
    }
  }

}
