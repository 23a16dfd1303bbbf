package dev.resurfacer.storage;

import dev.resurfacer.config.CatalogConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * What every delete path (Iceberg's remove-orphans, Delta's vacuum) respects beyond its own table,
 * shared by every table of a run: the tables of every configured catalog of either format (their
 * {@link Neighbours}, read on first use, once per run) and the files that are never listed nor
 * deleted (a catalog's own database and its side files, the configuration file).
 */
public final class StorageFences {
  private final List<CatalogConfig> catalogs;
  private final Path workingDir;
  private final List<String> protectedLocations;
  private final boolean shareIndex;
  private Neighbours index;

  private StorageFences(List<CatalogConfig> catalogs, Path workingDir, List<String> protectedLocations, boolean shareIndex) {
    this.catalogs = List.copyOf(catalogs);
    this.workingDir = workingDir;
    this.protectedLocations = List.copyOf(protectedLocations);
    this.shareIndex = shareIndex;
  }

  /** No catalog: only what a delete path finds on storage itself (tables nested in its scope, databases) fences it. */
  public static StorageFences none() {
    return new StorageFences(List.of(), Path.of("").toAbsolutePath(), List.of(), true);
  }

  /** Fences over {@code catalogs} (relative locations under the process's directory), protecting their own files and {@code configFile} (may be null). */
  public static StorageFences forCatalogs(List<CatalogConfig> catalogs, Path configFile) {
    return forCatalogs(catalogs, configFile, Path.of("").toAbsolutePath());
  }

  /** As {@link #forCatalogs(List, Path)}, relative table locations resolved under {@code workingDir}. */
  public static StorageFences forCatalogs(List<CatalogConfig> catalogs, Path configFile, Path workingDir) {
    List<String> protect = new ArrayList<>();
    for (TableCensus census : ServiceLoader.load(TableCensus.class, StorageFences.class.getClassLoader())) {
      for (CatalogConfig c : catalogs) {
        census.catalogFiles(c).forEach(p -> protect.add(p.toString()));
      }
    }
    if (configFile != null) {
      protect.add(configFile.toAbsolutePath().toString());
    }
    return new StorageFences(catalogs, workingDir, protect, true);
  }

  /**
   * The same fences for a long-running process ({@code serve}), where every removal reads the
   * catalogs afresh since a table created or a file referenced after the first run must still be
   * seen, and for a verb on one table, which then never reads that table's own files twice.
   */
  public StorageFences rereadEachRun() {
    return new StorageFences(catalogs, workingDir, protectedLocations, false);
  }

  /**
   * The other tables for a run on the table with identities {@code self}: the census read by the
   * first caller and shared after (one per run for {@code maintain}); with {@link #rereadEachRun()},
   * read afresh on each call, without reading {@code self}'s own files.
   */
  public synchronized Neighbours neighbours(Set<String> self) {
    if (!shareIndex) {
      return Neighbours.census(catalogs, workingDir, self);
    }
    if (index == null) {
      index = Neighbours.census(catalogs, workingDir, Set.of());
    }
    return index;
  }

  public List<String> protectedLocations() {
    return protectedLocations;
  }
}
