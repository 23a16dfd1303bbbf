package dev.resurfacer.iceberg.compact;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Which partitions a writer changed within the last {@code idle} ({@code min-partition-idle}): those
 * holding a data or delete file that a snapshot committed since then added or removed. Rewrites
 * ({@code replace}) change no row and do not count. Only the snapshots since the cutoff are read
 * (their own manifests), newest first along the current snapshot's ancestry; a snapshot already
 * expired cannot be read and is taken as no change, which the time {@code expire} keeps snapshots
 * (days) makes moot for an idle time of minutes or hours.
 *
 * @param busy {@code specId:partition-path} of every partition changed since the cutoff
 * @param everything whether a change applies to every partition (a delete of an unpartitioned spec
 *     in a partitioned table, such as a global equality delete)
 */
record IdlePartitions(Duration idle, Set<String> busy, boolean everything) {
  static IdlePartitions of(Table table, Snapshot current, Duration idle, long nowMillis) {
    long cutoff = nowMillis - idle.toMillis();
    Set<String> busy = new HashSet<>();
    boolean everything = false;
    for (Snapshot s = current;
        s != null && s.timestampMillis() >= cutoff;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (DataOperations.REPLACE.equals(s.operation())) {
        continue;
      }
      for (ContentFile<?> f : changed(table, s)) {
        PartitionSpec spec = table.specs().get(f.specId());
        if (spec.isUnpartitioned()
            && !table.spec().isUnpartitioned()
            && f instanceof org.apache.iceberg.DeleteFile) {
          everything = true;
        }
        busy.add(key(spec, f));
      }
    }
    return new IdlePartitions(idle, Set.copyOf(busy), everything);
  }

  private static Iterable<ContentFile<?>> changed(Table table, Snapshot s) {
    java.util.List<ContentFile<?>> out = new java.util.ArrayList<>();
    s.addedDataFiles(table.io()).forEach(out::add);
    s.removedDataFiles(table.io()).forEach(out::add);
    s.addedDeleteFiles(table.io()).forEach(out::add);
    return out;
  }

  /** Whether a writer changed this file's partition since the cutoff. */
  boolean busy(Table table, ContentFile<?> file) {
    return everything || busy.contains(key(table.specs().get(file.specId()), file));
  }

  private static String key(PartitionSpec spec, ContentFile<?> f) {
    return spec.specId() + ":"
        + (spec.isUnpartitioned() ? "" : spec.partitionToPath(f.partition()));
  }
}
