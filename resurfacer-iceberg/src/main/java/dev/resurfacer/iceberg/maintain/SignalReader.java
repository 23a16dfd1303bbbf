package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.maintain.TableSignals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Reads {@link TableSignals} from an Iceberg table's metadata: counts from the current snapshot's
 * summary, snapshots and the metadata log from the metadata file, and small files from the data
 * manifests' entries (file sizes), never from data files. Manifests are immutable, so each one's
 * small files per partition are remembered by its path: a streaming table's new commits cost one
 * small manifest read each. Small files count where a bin-pack compaction would take them: a
 * partition's small files count when there are at least two and at least {@code min-input-files}
 * of them, or when together they exceed the target size (so a table whose partitions are one file
 * each never fires a {@code small-files} trigger it cannot improve).
 */
final class SignalReader {
  private static final int REMEMBERED_MANIFESTS = 20_000;

  /** Per manifest, per partition (spec id and path): small files and their bytes. */
  private final Map<String, Map<String, long[]>> smallByManifest =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, long[]>> eldest) {
          return size() > REMEMBERED_MANIFESTS;
        }
      };

  /** @param minInputFiles fewer small files than this in a partition (and not above the target size together) do not count; 1 counts every small file */
  TableSignals read(Table table, Instant since, int minInputFiles) {
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    Instant oldest = null;
    int commits = 0;
    for (Snapshot s : meta.snapshots()) {
      Instant at = Instant.ofEpochMilli(s.timestampMillis());
      oldest = oldest == null || at.isBefore(oldest) ? at : oldest;
      // replace is what maintenance commits (compaction, manifest and dangling-delete rewrites):
      // not a writer's commit
      if ((since == null || at.isAfter(since)) && !DataOperations.REPLACE.equals(s.operation())) {
        commits++;
      }
    }
    Snapshot current = meta.currentSnapshot();
    Map<String, String> summary = current == null ? Map.of() : current.summary();
    Long deletes =
        sum(summary, SnapshotSummary.TOTAL_POS_DELETES_PROP, SnapshotSummary.TOTAL_EQ_DELETES_PROP);
    return new TableSignals(
        current == null ? 0L : number(summary, SnapshotSummary.TOTAL_DATA_FILES_PROP),
        current == null ? 0L : smallFiles(table, current, minInputFiles),
        current == null ? 0L : number(summary, SnapshotSummary.TOTAL_DELETE_FILES_PROP),
        current == null ? 0L : number(summary, SnapshotSummary.TOTAL_RECORDS_PROP),
        current == null ? 0L : deletes,
        meta.snapshots().size(),
        oldest,
        meta.previousFiles().size() + 1,
        commits);
  }

  private long smallFiles(Table table, Snapshot current, int minInputFiles) {
    long target = PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    // the same threshold describe and the reports use (HealthInspector)
    long threshold = (long) (target * 0.75);
    Map<String, long[]> byPartition = new java.util.HashMap<>();
    for (ManifestFile m : current.dataManifests(table.io())) {
      String key = threshold + "@" + m.path();
      Map<String, long[]> known;
      synchronized (smallByManifest) {
        known = smallByManifest.get(key);
      }
      if (known == null) {
        known = new java.util.HashMap<>();
        try (ManifestReader<DataFile> reader = ManifestFiles.read(m, table.io(), table.specs())) {
          for (DataFile f : reader) {
            if (f.fileSizeInBytes() < threshold) {
              PartitionSpec spec = table.specs().get(f.specId());
              String partition = f.specId() + "/"
                  + (spec == null || spec.isUnpartitioned()
                      ? ""
                      : spec.partitionToPath(f.partition()));
              long[] c = known.computeIfAbsent(partition, k -> new long[2]);
              c[0]++;
              c[1] += f.fileSizeInBytes();
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        synchronized (smallByManifest) {
          smallByManifest.put(key, known);
        }
      }
      known.forEach((partition, c) -> {
        long[] sum = byPartition.computeIfAbsent(partition, k -> new long[2]);
        sum[0] += c[0];
        sum[1] += c[1];
      });
    }
    long small = 0;
    for (long[] c : byPartition.values()) {
      if (TableSignals.smallFilesCount(c[0], c[1], minInputFiles, target)) {
        small += c[0];
      }
    }
    return small;
  }

  private static Long number(Map<String, String> summary, String key) {
    String v = summary.get(key);
    try {
      return v == null ? null : Long.parseLong(v);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Long sum(Map<String, String> summary, String a, String b) {
    Long x = number(summary, a);
    Long y = number(summary, b);
    return x == null || y == null ? null : x + y;
  }
}
