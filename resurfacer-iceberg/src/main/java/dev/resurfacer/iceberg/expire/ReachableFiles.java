package dev.resurfacer.iceberg.expire;

import dev.resurfacer.iceberg.expire.ExpireResult.ReclaimedFile;
import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.storage.StoredFile;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * The files that only expiring snapshots reach: everything reachable from the expiring snapshots
 * (manifest lists, manifests, live data and delete files, statistics) minus everything reachable
 * from the snapshots that stay, by the one {@link MetadataWalker}. Reads metadata only.
 */
final class ReachableFiles {
  static final String DATA = "data";
  static final String DELETE = "delete";
  static final String MANIFEST = "manifest";
  static final String MANIFEST_LIST = "manifest_list";
  static final String STATISTICS = "statistics";
  static final String PARTITION_STATISTICS = "partition_statistics";
  static final java.util.List<String> CATEGORIES =
      java.util.List.of(DATA, DELETE, MANIFEST, MANIFEST_LIST, STATISTICS, PARTITION_STATISTICS);

  private ReachableFiles() {}

  /** Path to file for everything {@code expiring} reaches and {@code retained} does not, in walk order. */
  static Map<String, ReclaimedFile> onlyReachableFrom(
      Table table,
      Collection<Snapshot> expiring,
      Collection<Snapshot> retained,
      StoredFile.Resolver resolver) {
    FileIO io = table.io();
    // kept files by canonical identity: one file committed as file:/x and later referenced as /x is
    // one file
    Set<String> kept = keptKeys(table, retained, resolver);
    Set<String> keptManifests = new HashSet<>();
    for (Snapshot s : retained) {
      for (ManifestFile m : s.allManifests(io)) {
        keptManifests.add(m.path());
      }
    }

    Map<String, ReclaimedFile> out = new LinkedHashMap<>();
    MetadataWalker.withSizes(io).walkSnapshots(expiring, table.specs(), new MetadataWalker.Sink() {
      @Override
      public void file(MetadataWalker.Kind kind, String location, long sizeInBytes) {
        if (!isKept(kept, resolver, location)) {
          // a Puffin file holds many deletion vectors; its size counts once
          out.putIfAbsent(
              location,
              new ReclaimedFile(
                  location,
                  category(kind),
                  kind == MetadataWalker.Kind.MANIFEST_LIST ? length(io, location) : sizeInBytes));
        }
      }

      @Override
      public boolean manifest(ManifestFile m) {
        if (keptManifests.contains(m.path())) {
          return false;
        }
        file(MetadataWalker.Kind.MANIFEST, m.path(), m.length());
        return true;
      }
    });

    Set<Long> expiringIds = new HashSet<>();
    expiring.forEach(s -> expiringIds.add(s.snapshotId()));
    Set<String> keptStats = new HashSet<>();
    for (StatisticsFile f : table.statisticsFiles()) {
      if (!expiringIds.contains(f.snapshotId())) {
        keptStats.add(f.path());
      }
    }
    for (PartitionStatisticsFile f : table.partitionStatisticsFiles()) {
      if (!expiringIds.contains(f.snapshotId())) {
        keptStats.add(f.path());
      }
    }
    keptStats.forEach(p -> keep(kept, resolver, p));
    for (StatisticsFile f : table.statisticsFiles()) {
      if (expiringIds.contains(f.snapshotId()) && !isKept(kept, resolver, f.path())) {
        out.putIfAbsent(f.path(), new ReclaimedFile(f.path(), STATISTICS, f.fileSizeInBytes()));
      }
    }
    for (PartitionStatisticsFile f : table.partitionStatisticsFiles()) {
      if (expiringIds.contains(f.snapshotId()) && !isKept(kept, resolver, f.path())) {
        out.putIfAbsent(
            f.path(), new ReclaimedFile(f.path(), PARTITION_STATISTICS, f.fileSizeInBytes()));
      }
    }
    return out;
  }

  /**
   * Canonical keys of every file the {@code retained} snapshots reach: manifest lists, manifests,
   * data and delete files (a DV's Puffin file included), and the current metadata files.
   */
  static Set<String> keptKeys(
      Table table, Collection<Snapshot> retained, StoredFile.Resolver resolver) {
    Set<String> kept = new HashSet<>();
    MetadataWalker.withSizes(table.io())
        .walkSnapshots(
            retained, table.specs(), (kind, location, size) -> keep(kept, resolver, location));
    return kept;
  }

  private static String category(MetadataWalker.Kind kind) {
    return switch (kind) {
      case DATA -> DATA;
      case DELETE -> DELETE;
      case MANIFEST -> MANIFEST;
      case MANIFEST_LIST -> MANIFEST_LIST;
      case STATISTICS -> STATISTICS;
      case PARTITION_STATISTICS -> PARTITION_STATISTICS;
      case METADATA_JSON ->
        throw new IllegalArgumentException("expiry never reclaims a metadata.json");
    };
  }

  /** Adds every identity of {@code location} (two for a local '..' after a link: the kernel's and Hadoop's). */
  static void keep(Set<String> kept, StoredFile.Resolver resolver, String location) {
    for (StoredFile f : resolver.resolveAll(location)) {
      kept.add(f.key());
    }
  }

  /** True when any identity of {@code location} is kept: a candidate is deleted only when none is. */
  static boolean isKept(Set<String> kept, StoredFile.Resolver resolver, String location) {
    for (StoredFile f : resolver.resolveAll(location)) {
      if (kept.contains(f.key())) {
        return true;
      }
    }
    return false;
  }

  private static long length(FileIO io, String path) {
    try {
      return io.newInputFile(path).getLength();
    } catch (NotFoundException | UncheckedIOException e) {
      return 0; // already gone; nothing to reclaim but the reference
    }
  }
}
