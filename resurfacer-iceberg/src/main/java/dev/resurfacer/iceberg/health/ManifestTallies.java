package dev.resurfacer.iceberg.health;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What {@link HealthInspector} counted in each manifest, kept by the manifest's path (and the
 * small-file threshold it counted with): a manifest never changes once written, so a table measured
 * again — {@code serve} measures every table before and after each run — reads only the manifests
 * its commits since added. Bounded: the least recently used tallies go first.
 */
public final class ManifestTallies {
  private static final int KEPT = 50_000;

  /** One manifest's live entries: data files (count, bytes, records, small, per size bucket) or delete files. */
  record Tally(long[] counts) {}

  private final Map<String, Tally> byManifest = new LinkedHashMap<>(1024, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Tally> eldest) {
      return size() > KEPT;
    }
  };

  /** No memory: every manifest is read (describe, one-off measurements). */
  static final ManifestTallies NONE = new ManifestTallies();

  Tally get(String key, Supplier<Tally> read) {
    if (this == NONE) {
      return read.get();
    }
    synchronized (byManifest) {
      Tally known = byManifest.get(key);
      if (known != null) {
        return known;
      }
    }
    Tally fresh = read.get();
    synchronized (byManifest) {
      byManifest.put(key, fresh);
    }
    return fresh;
  }
}
