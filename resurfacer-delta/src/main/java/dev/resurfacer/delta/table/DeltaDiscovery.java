package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.storage.StoredFile;
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
 * and stops at a table: nothing below a table (its partition directories) is another table. An
 * {@code s3://} root is walked by {@link S3Discovery} with the same rules, on the catalog's S3 settings.
 */
public final class DeltaDiscovery {
  static final Pattern LOG_ENTRY = Pattern.compile("\\d{20}\\.(json|checkpoint(\\..+)?\\.parquet)");
  private static final Pattern NOT_IN_NAME = Pattern.compile("[.\\s*?\\[\\]]");

  private DeltaDiscovery() {}

  /** Every table of {@code catalog}, name to location; an explicit entry wins over a discovered one of the same name. */
  public static Map<String, String> tables(CatalogConfig catalog, Path workingDir) {
    if (catalog.discover().isEmpty()) {
      return catalog.tables();
    }
    refuseOverlaps(List.of(catalog), workingDir);
    Set<String> explicitPlaces = new HashSet<>();
    catalog.tables().values().forEach(l -> explicitPlaces.add(identity(l, workingDir)));
    Map<String, String> found = new TreeMap<>();
    S3Objects s3 = null;
    try {
      for (String root : catalog.discover()) {
        if (DeltaTables.isS3(root)) {
          if (s3 == null) {
            s3 = new S3Objects(DeltaTables.settings(catalog));
          }
          S3Discovery.walk(
              catalog, root, s3, (relative, location) -> add(catalog, relative, location, found));
          continue;
        }
        if (DeltaTables.isAzure(root)) {
          throw new UsageException(
              "catalogs." + catalog.name() + ".discover: " + root
                  + ": discover roots on Azure are not walked yet; name the container's tables under tables:");
        }
        if (DeltaTables.isGcs(root)) {
          throw new UsageException(
              "catalogs." + catalog.name() + ".discover: " + root
                  + ": discover roots on Cloud Storage are not walked yet; name the bucket's tables under tables:");
        }
        Path rootDir = DeltaTables.localPath(root, workingDir);
        if (!Files.isDirectory(rootDir)) {
          throw new UsageException(
              "catalogs." + catalog.name() + ".discover: " + root + " is not a directory");
        }
        if (Files.isDirectory(rootDir.resolve("_delta_log"))) {
          throw new UsageException(alreadyATable(catalog, root));
        }
        walk(catalog, rootDir, rootDir, found);
      }
    } finally {
      if (s3 != null) {
        s3.close();
      }
    }
    Map<String, String> out = new LinkedHashMap<>(catalog.tables());
    found.forEach((name, location) -> {
      if (!out.containsKey(name) && !explicitPlaces.contains(identity(location, workingDir))) {
        out.put(name, location);
      }
    });
    return out;
  }

  /**
   * A table two roots cover, or one root covers while another catalog names it, would have two names and
   * so two policies: a {@code vacuum.keep-versions} set under one name would not protect the table when
   * it is vacuumed under the other. Such configurations are refused (one line), before any walk.
   */
  public static void refuseOverlaps(java.util.Collection<CatalogConfig> catalogs, Path workingDir) {
    record Root(CatalogConfig catalog, String root, StoredFile place) {}
    List<Root> roots = new ArrayList<>();
    for (CatalogConfig c : catalogs) {
      if (c.isDelta()) {
        c.discover().forEach(r -> roots.add(new Root(c, r, place(r, workingDir))));
      }
    }
    for (int i = 0; i < roots.size(); i++) {
      for (int j = i + 1; j < roots.size(); j++) {
        Root a = roots.get(i);
        Root b = roots.get(j);
        if (a.place().contains(b.place()) || b.place().contains(a.place())) {
          throw new UsageException(
              "catalogs." + a.catalog().name() + ".discover: " + a.root() + " and catalogs."
                  + b.catalog().name() + ".discover: " + b.root()
                  + " overlap: a table under both would have two names (and two policies); keep one root");
        }
      }
    }
    for (CatalogConfig c : catalogs) {
      if (!c.isDelta()) {
        continue;
      }
      c.tables().forEach((name, location) -> {
        StoredFile table = place(location, workingDir);
        for (Root r : roots) {
          if (r.catalog() != c && r.place().contains(table)) {
            throw new UsageException(
                "catalogs." + c.name() + ".tables." + name + ": " + location + " is under catalogs."
                    + r.catalog().name() + ".discover: " + r.root()
                    + ": the table would have two names (and two policies); name it in "
                    + r.catalog().name() + " or narrow the root");
          }
        }
      });
    }
  }

  private static StoredFile place(String location, Path workingDir) {
    return StoredFile.parse(
        DeltaTables.isObjectStore(location)
            ? location
            : DeltaTables.localPath(location, workingDir).normalize().toString());
  }

  static String alreadyATable(CatalogConfig catalog, String root) {
    return "catalogs." + catalog.name() + ".discover: " + root
        + " is itself a Delta table; name it under tables: instead";
  }

  /** One spelling per place: an S3 location's {@link StoredFile} key ({@code s3a://} is {@code s3://}), a local one's absolute path. */
  private static String identity(String location, Path workingDir) {
    return DeltaTables.isObjectStore(location)
        ? StoredFile.parse(location).key()
        : DeltaTables.localPath(location, workingDir).toString();
  }

  /** The location of a discovered table {@code name} in any delta catalog of {@code config}. */
  public static Optional<String> location(String name, ResurfacerConfig config, Path workingDir) {
    return config.catalogs().values().stream()
        .filter(c -> c.isDelta() && !c.discover().isEmpty())
        .map(c -> tables(c, workingDir).get(name))
        .filter(java.util.Objects::nonNull)
        .findFirst();
  }

  private static void walk(CatalogConfig catalog, Path root, Path dir, Map<String, String> found) {
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path child : s) {
        String n = child.getFileName().toString();
        // a link may lead out of the root (or into a loop): discovery follows none
        if (!n.startsWith("_")
            && !n.startsWith(".")
            && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          children.add(child);
        }
      }
    } catch (IOException e) {
      throw new UsageException(
          "catalogs." + catalog.name() + ".discover: cannot list " + dir + ": " + e.getMessage());
    }
    children.sort(null);
    for (Path child : children) {
      Path log = child.resolve("_delta_log");
      if (Files.isDirectory(log, LinkOption.NOFOLLOW_LINKS)) {
        if (hasCommitOrCheckpoint(catalog, log)) {
          List<String> relative = new ArrayList<>();
          root.relativize(child).forEach(p -> relative.add(p.toString()));
          add(catalog, relative, child.toString(), found);
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
      throw new UsageException(
          "catalogs." + catalog.name() + ".discover: cannot list " + log + ": " + e.getMessage());
    }
  }

  private static void add(
      CatalogConfig catalog, List<String> relative, String location, Map<String, String> found) {
    String name = nameOf(relative);
    String previous = found.putIfAbsent(name, location);
    if (previous != null && !catalog.tables().containsKey(name)) {
      throw new UsageException("catalogs." + catalog.name() + ".discover: " + previous + " and "
          + location + " both make the name " + name + "; name one under tables:");
    }
  }

  /** {@code raw/web/events} is {@code raw.web_events}; {@code events} is {@code default.events}. */
  static String nameOf(List<String> relative) {
    List<String> parts =
        relative.stream().map(p -> NOT_IN_NAME.matcher(p).replaceAll("_")).toList();
    if (parts.size() == 1) {
      return "default." + parts.get(0);
    }
    return parts.get(0) + "." + String.join("_", parts.subList(1, parts.size()));
  }
}
