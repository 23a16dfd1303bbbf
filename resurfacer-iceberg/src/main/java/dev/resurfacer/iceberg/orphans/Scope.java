package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * The directories one table owns: its location and, when set, {@code write.data.path} and
 * {@code write.metadata.path}. Only these are listed; a root nested in another is dropped so no
 * file is listed twice.
 */
record Scope(List<StorageUri> roots, List<String> rawRoots) {
  static Scope of(TableMetadata metadata) {
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
    List<StorageUri> roots = new ArrayList<>();
    List<String> rawRoots = new ArrayList<>();
    for (var e : raw.entrySet()) {
      StorageUri uri;
      try {
        uri = StorageUri.parse(e.getValue());
      } catch (SafetyRefusal r) {
        throw new SafetyRefusal("scope: " + e.getKey() + " '" + e.getValue() + "' cannot be resolved (" + r.getMessage() + ")");
      }
      if (uri.path().equals("/")) {
        throw new SafetyRefusal("scope: " + e.getKey() + " '" + e.getValue() + "' is the root of its file system or bucket");
      }
      boolean covered = roots.stream().anyMatch(r -> r.contains(uri));
      if (covered) {
        continue;
      }
      for (int i = roots.size() - 1; i >= 0; i--) {
        if (uri.contains(roots.get(i))) {
          roots.remove(i);
          rawRoots.remove(i);
        }
      }
      roots.add(uri);
      rawRoots.add(e.getValue());
    }
    return new Scope(List.copyOf(roots), List.copyOf(rawRoots));
  }

  /** The root that contains {@code uri}, or null when it lies outside the table's scope. */
  StorageUri rootOf(StorageUri uri) {
    for (StorageUri r : roots) {
      if (r.contains(uri)) {
        return r;
      }
    }
    return null;
  }

  boolean inScope(StorageUri uri) {
    return rootOf(uri) != null;
  }

  /** Roots as keys, for reports. */
  List<String> keys() {
    return roots.stream().map(StorageUri::key).toList();
  }
}
