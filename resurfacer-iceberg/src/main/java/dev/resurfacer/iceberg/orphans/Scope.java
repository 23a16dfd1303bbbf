package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.storage.StoredFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * The directories one table owns: its location and, when set, {@code write.data.path} and
 * {@code write.metadata.path}, each in canonical form (a local root is its real path, so a root
 * spelled through a link or with {@code ..} is the directory it really is). Only these are listed;
 * a root nested in another is dropped so no file is listed twice.
 */
record Scope(List<Root> roots) {
  /**
   * One listing root.
   *
   * @param id the canonical identity every listed and referenced file is compared with
   * @param listFrom what the listing starts from: the real directory on local disk, else the location as written
   * @param property the table property (or {@code location}) it comes from
   */
  record Root(StoredFile id, String listFrom, String property) {
    boolean isLocal() {
      return id.isLocal();
    }

    Path localDirectory() {
      return Path.of(listFrom);
    }
  }

  static Scope of(TableMetadata metadata, StoredFile.Resolver resolver) {
    return of(metadata, resolver, false);
  }

  /**
   * A neighbour's directories: a root with a {@code ..} after a symbolic link counts under both of
   * its meanings (see {@link StoredFile.Resolver#resolveAll}), where this table's own scope refuses it.
   */
  static List<StoredFile> neighbourRoots(TableMetadata metadata, StoredFile.Resolver resolver) {
    return of(metadata, resolver, true).roots().stream().map(Root::id).toList();
  }

  private static Scope of(
      TableMetadata metadata, StoredFile.Resolver resolver, boolean everyMeaning) {
    Map<String, String> raw = new LinkedHashMap<>();
    raw.put("location", metadata.location());
    String data = metadata.properties().get(TableProperties.WRITE_DATA_LOCATION);
    if (data != null && !data.isBlank()) {
      raw.put(TableProperties.WRITE_DATA_LOCATION, data);
    }
    String meta = metadata.properties().get(TableProperties.WRITE_METADATA_LOCATION);
    if (meta != null && !meta.isBlank()) {
      raw.put(TableProperties.WRITE_METADATA_LOCATION, meta);
    }
    List<Root> roots = new ArrayList<>();
    for (var e : raw.entrySet()) {
      List<StoredFile> ids;
      String listFrom;
      try {
        ids = resolver.resolveAll(e.getValue());
        Path real = resolver.realPath(e.getValue());
        listFrom = real != null ? real.toString() : e.getValue();
      } catch (SafetyRefusal r) {
        throw new SafetyRefusal("scope: " + e.getKey() + " '" + e.getValue()
            + "' cannot be resolved (" + r.getMessage() + ")");
      }
      if (ids.size() > 1 && !everyMeaning) {
        // the kernel would list one directory while Hadoop writes the table's files in the other
        throw new SafetyRefusal("scope: " + e.getKey() + " '" + e.getValue()
            + "' has a '..' after a symbolic link, so it is " + ids.get(0) + " on disk but "
            + ids.get(1) + " to Hadoop; spell it without '..'");
      }
      StoredFile id = ids.get(0);
      if (id.path().equals("/")) {
        throw new SafetyRefusal("scope: " + e.getKey() + " '" + e.getValue()
            + "' is the root of its file system or bucket");
      }
      addRoot(roots, new Root(id, listFrom, e.getKey()));
      for (StoredFile extra : ids.subList(1, ids.size())) {
        addRoot(
            roots,
            new Root(
                extra,
                extra.path(),
                e.getKey())); // a neighbour's other meaning: compared, never listed
      }
    }
    return new Scope(List.copyOf(roots));
  }

  private static void addRoot(List<Root> roots, Root root) {
    if (roots.stream().anyMatch(r -> r.id().contains(root.id()))) {
      return;
    }
    roots.removeIf(r -> root.id().contains(r.id()));
    roots.add(root);
  }

  /** The root that contains {@code file}, or null when it lies outside the table's scope. */
  Root rootOf(StoredFile file) {
    for (Root r : roots) {
      if (r.id().contains(file)) {
        return r;
      }
    }
    return null;
  }

  boolean inScope(StoredFile file) {
    return rootOf(file) != null;
  }

  boolean overlaps(StoredFile other) {
    return roots.stream().anyMatch(r -> r.id().contains(other) || other.contains(r.id()));
  }

  /** Roots as keys, for reports. */
  List<String> keys() {
    return roots.stream().map(r -> r.id().key()).toList();
  }
}
