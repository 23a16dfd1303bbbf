package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The tables of a {@code type: delta} catalog: its {@code tables:} entries, then every Delta table
 * found under its {@code discover:} roots. A directory is a table when its {@code _delta_log} holds a
 * commit or a checkpoint; its name comes from its path below the root: the first directory is the
 * namespace, the rest joined with {@code _} the table ({@code root/raw/web/events} is
 * {@code raw.web_events}); a table directly below the root is in namespace {@code default}. Characters
 * a name cannot hold ({@code .}, blanks, glob characters) become {@code _}.
 *
 * <p>The walk never follows a symbolic link, skips {@code _} and {@code .} directories as Delta does,
 * and stops at a table: nothing below a table (its partition directories) is another table.
 */
public final class DeltaDiscovery {
  private static final Pattern LOG_ENTRY = Pattern.compile("\\d{20}\\.(json|checkpoint(\\..+)?\\.parquet)");
  private static final Pattern NOT_IN_NAME = Pattern.compile("[.\\s*?\\[\\]]");

  private DeltaDiscovery() {}

  /** Every table of {@code catalog}, name to location; an explicit entry wins over a discovered one of the same name. */
  public static Map<String, String> tables(CatalogConfig catalog, Path workingDir) {
    if (catalog.discover().isEmpty()) {
      return catalog.tables();
    }
    Set<Path> explicitPlaces = new HashSet<>();
    catalog.tables().values().stream().filter(l -> !DeltaTables.isS3(l))
        .forEach(l -> explicitPlaces.add(DeltaTables.localPath(l, workingDir)));
    Map<String, Path> found = new TreeMap<>();
    for (String root : catalog.discover()) {
      Path rootDir = DeltaTables.localPath(root, workingDir);
      if (!Files.isDirectory(rootDir)) {
        throw new UsageException("catalogs." + catalog.name() + ".discover: " + root + " is not a directory");
      }
      if (Files.isDirectory(rootDir.resolve("_delta_log"))) {
        throw new UsageException("catalogs." + catalog.name() + ".discover: " + root
            + " is itself a Delta table; name it under tables: instead");
      }
      walk(catalog, rootDir, rootDir, found);
    }
    Map<String, String> out = new LinkedHashMap<>(catalog.tables());
    found.forEach((name, dir) -> {
      if (!out.containsKey(name) && !explicitPlaces.contains(dir)) {
        out.put(name, dir.toString());
      }
    });
    return out;
  }

  /** The location of a discovered table {@code name} in any delta catalog of {@code config}. */
  public static Optional<String> location(String name, ResurfacerConfig config, Path workingDir) {
    return config.catalogs().values().stream()
        .filter(c -> c.isDelta() && !c.discover().isEmpty())
        .map(c -> tables(c, workingDir).get(name))
        .filter(java.util.Objects::nonNull)
        .findFirst();
  }

  private static void walk(CatalogConfig catalog, Path root, Path dir, Map<String, Path> found) {
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path child : s) {
        String n = child.getFileName().toString();
        // a link may lead out of the root (or into a loop): discovery follows none
        if (!n.startsWith("_") && !n.startsWith(".") && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          children.add(child);
        }
      }
    } catch (IOException e) {
      throw new UsageException("catalogs." + catalog.name() + ".discover: cannot list " + dir + ": " + e.getMessage());
    }
    children.sort(null);
    for (Path child : children) {
      Path log = child.resolve("_delta_log");
      if (Files.isDirectory(log, LinkOption.NOFOLLOW_LINKS)) {
        if (hasCommitOrCheckpoint(catalog, log)) {
          add(catalog, root, child, found);
        }
        continue; // a table's own directories hold no other table
      }
      walk(catalog, root, child, found);
    }
  }

  private static boolean hasCommitOrCheckpoint(CatalogConfig catalog, Path log) {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(log)) {
      for (Path entry : s) {
        if (LOG_ENTRY.matcher(entry.getFileName().toString()).matches()) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UsageException("catalogs." + catalog.name() + ".discover: cannot list " + log + ": " + e.getMessage());
    }
  }

  private static void add(CatalogConfig catalog, Path root, Path table, Map<String, Path> found) {
    String name = nameOf(root.relativize(table));
    Path previous = found.putIfAbsent(name, table);
    if (previous != null && !catalog.tables().containsKey(name)) {
      throw new UsageException("catalogs." + catalog.name() + ".discover: " + previous + " and " + table
          + " both make the name " + name + "; name one under tables:");
    }
  }

  /** {@code raw/web/events} is {@code raw.web_events}; {@code events} is {@code default.events}. */
  static String nameOf(Path relative) {
    List<String> parts = new ArrayList<>();
    relative.forEach(p -> parts.add(NOT_IN_NAME.matcher(p.toString()).replaceAll("_")));
    if (parts.size() == 1) {
      return "default." + parts.get(0);
    }
    return parts.get(0) + "." + String.join("_", parts.subList(1, parts.size()));
  }
}
