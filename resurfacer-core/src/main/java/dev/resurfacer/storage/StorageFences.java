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
 * {@link Neighbours}) and the files that are never listed nor deleted (a catalog's own database and
 * its side files, the configuration file). Every call lists the catalogs afresh, so a table created
 * or changed since the last call is seen; what a table version references is read once and kept in a
 * {@link CensusMemo} for as long as these fences live (one run of {@code maintain}, the whole
 * process for {@code serve}).
 */
public final class StorageFences {
  private final List<CatalogConfig> catalogs;
  private final Path workingDir;
  private final List<String> protectedLocations;
  private final CensusMemo memo;

  private StorageFences(
      List<CatalogConfig> catalogs,
      Path workingDir,
      List<String> protectedLocations,
      CensusMemo memo) {
    this.catalogs = List.copyOf(catalogs);
    this.workingDir = workingDir;
    this.protectedLocations = List.copyOf(protectedLocations);
    this.memo = memo;
  }

  /** No catalog: only what a delete path finds on storage itself (tables nested in its scope, databases) fences it. */
  public static StorageFences none() {
    return new StorageFences(List.of(), Path.of("").toAbsolutePath(), List.of(), new CensusMemo());
  }

  /** Fences over {@code catalogs} (relative locations under the process's directory), protecting their own files and {@code configFile} (may be null). */
  public static StorageFences forCatalogs(List<CatalogConfig> catalogs, Path configFile) {
    return forCatalogs(catalogs, configFile, Path.of("").toAbsolutePath());
  }

  /** As {@link #forCatalogs(List, Path)}, relative table locations resolved under {@code workingDir}. */
  public static StorageFences forCatalogs(
      List<CatalogConfig> catalogs, Path configFile, Path workingDir) {
    List<String> protect = new ArrayList<>();
    for (TableCensus census :
        ServiceLoader.load(TableCensus.class, StorageFences.class.getClassLoader())) {
      for (CatalogConfig c : catalogs) {
        census.catalogFiles(c).forEach(p -> protect.add(p.toString()));
      }
    }
    if (configFile != null) {
      protect.add(configFile.toAbsolutePath().toString());
    }
    return new StorageFences(catalogs, workingDir, protect, new CensusMemo());
  }

  /**
   * The same fences with a memo of their own, for a long-running process ({@code serve}) or a verb
   * on one table: a table created or a file referenced after an earlier run is seen either way
   * (every call lists the catalogs); this only keeps the memos of two holders apart.
   */
  public StorageFences rereadEachRun() {
    return new StorageFences(catalogs, workingDir, protectedLocations, new CensusMemo());
  }

  /**
   * The other tables for a run on the table with identities {@code self} (whose own files are not
   * read), as the catalogs list them now: tables whose version is unchanged since an earlier call
   * come from the memo, every other one is read.
   */
  public Neighbours neighbours(Set<String> self) {
    return Neighbours.census(catalogs, workingDir, self, memo);
  }

  /** The memo of this run's census reads (tests and benchmarks count what was read). */
  public CensusMemo memo() {
    return memo;
  }

  public List<String> protectedLocations() {
    return protectedLocations;
  }
}
