package dev.resurfacer.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a {@link TableCensus} read of one table version, kept across the census reads of one
 * {@link StorageFences}: a table's files are a function of its version (an Iceberg metadata file,
 * a Delta log version), so a census that lists the catalogs afresh re-reads only the tables that
 * changed since it last looked and still sees every change. Unreadable tables are never kept:
 * they are tried again on the next read.
 */
public final class CensusMemo {
  private static final int KEPT = 20_000;

  private final Map<String, Neighbour> byVersion = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Neighbour> eldest) {
      return size() > KEPT;
    }
  };
  private long reads;
  private long reused;

  /**
   * The neighbour a table named {@code label} is at {@code version}, read by {@code read} when this
   * memo has not seen that version.
   */
  public Neighbour at(String label, String version, Supplier<Neighbour> read) {
    String key = label + "\u0000" + version;
    synchronized (byVersion) {
      Neighbour known = byVersion.get(key);
      if (known != null) {
        reused++;
        return known;
      }
    }
    Neighbour fresh = read.get();
    synchronized (byVersion) {
      reads++;
      if (fresh.error() == null) {
        byVersion.put(key, fresh);
      }
    }
    return fresh;
  }

  /** How many table versions were read and how many reused, for tests and benchmarks. */
  public long[] counts() {
    synchronized (byVersion) {
      return new long[] {reads, reused};
    }
  }
}
