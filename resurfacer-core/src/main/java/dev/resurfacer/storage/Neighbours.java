package dev.resurfacer.storage;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Every other table a delete path must not touch, of every format: a table that lives inside the
 * scope, or that references a file there, would lose files that look unreferenced from here. Built
 * by the {@link TableCensus} of each format on the classpath, so Iceberg's remove-orphans sees Delta
 * tables and Delta's vacuum sees Iceberg tables.
 */
public final class Neighbours {
  public static final Neighbours NONE = new Neighbours(List.of());

  private final List<Neighbour> tables;

  public Neighbours(List<Neighbour> tables) {
    this.tables = List.copyOf(tables);
  }

  /**
   * The tables of {@code catalogs}, read by every format's census; tables with any of {@code skip}'s
   * identities are not read (the run's own table: its files are the scope, not a neighbour's).
   */
  public static Neighbours census(List<CatalogConfig> catalogs, Path workingDir, Set<String> skip) {
    return census(catalogs, workingDir, skip, new CensusMemo());
  }

  /** As {@link #census(List, Path, Set)}, reusing what {@code memo} holds for table versions that are still current. */
  public static Neighbours census(
      List<CatalogConfig> catalogs, Path workingDir, Set<String> skip, CensusMemo memo) {
    List<Neighbour> all = new ArrayList<>();
    for (TableCensus census :
        ServiceLoader.load(TableCensus.class, Neighbours.class.getClassLoader())) {
      all.addAll(census.neighbours(catalogs, workingDir, skip, memo));
    }
    return new Neighbours(all);
  }

  public List<Neighbour> tables() {
    return tables;
  }

  /**
   * Throws {@link SafetyRefusal} when any table but the one with identities {@code self} overlaps
   * {@code scope} or references a file in it; returns how many other tables were checked.
   */
  public int requireNothingInside(Set<String> self, List<StoredFile> scope) {
    int checked = 0;
    String where = String.join(", ", scope.stream().map(StoredFile::key).toList());
    for (Neighbour t : tables) {
      if (!Collections.disjoint(t.identities(), self)) {
        continue;
      }
      checked++;
      if (t.error() != null) {
        throw new SafetyRefusal("scope: cannot read table " + t.label()
            + " to check that none of its files lies in this table's" + " storage (" + t.error()
            + ")");
      }
      for (StoredFile root : t.roots()) {
        for (StoredFile s : scope) {
          if (s.contains(root) || root.contains(s)) {
            throw new SafetyRefusal(
                "scope: table " + t.label() + " lives at " + root + ", which overlaps this table's "
                    + where + "; its files would look unreferenced here");
          }
        }
      }
      for (StoredFile s : scope) {
        String dir = firstAtOrBelow(t.referencedDirs(), s.key());
        if (dir != null) {
          throw new SafetyRefusal("scope: table " + t.label() + " references files in " + dir
              + ", inside this table's storage; they would look unreferenced here");
        }
      }
    }
    return checked;
  }

  /**
   * Throws {@link SafetyRefusal} when any table but {@code self} references a file in the directory
   * of one of {@code files} (what a delete path other than a listing — expiry — is about to delete):
   * a file shared with another table ({@code add_files}, a clone, a table converted in place) may be
   * that table's live file. Unlike a listing, expiry deletes only files this table itself referenced,
   * so a table that cannot be read does not stop it (one broken table must not stop every expiry of a
   * fleet); remove-orphans, which would take anything unreferenced, refuses then.
   */
  public void requireNoneShared(
      Set<String> self, java.util.Collection<StoredFile> files, String what) {
    for (Neighbour t : tables) {
      if (!Collections.disjoint(t.identities(), self) || t.error() != null) {
        continue;
      }
      for (StoredFile f : files) {
        if (t.referencedDirs().contains(f.parent().key())) {
          throw new SafetyRefusal("table " + t.label() + " references files in " + f.parent()
              + ", where " + what + " " + f + "; it may be one of them");
        }
      }
    }
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
