package dev.resurfacer.iceberg.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Regroups a table's data manifests by partition with Iceberg core's {@code RewriteManifests}, so a
 * partition-filtered scan opens one manifest per partition instead of one per streaming commit.
 * Core writes the new manifests (rolling at {@code commit.manifest.target-size-bytes}) and keeps
 * every entry's snapshot id and sequence numbers; the rewrite changes metadata only.
 */
public final class ManifestRewriter {
  private ManifestRewriter() {}

  /** Counts and the expected outcome. Reads manifests; writes nothing. */
  public static ManifestRewriteResult preview(String name, Table table) {
    table.refresh();
    return plan(name, table).result(name, false, current(table), null);
  }

  /** Rewrites the data manifests clustered by partition, unless they already are. */
  public static ManifestRewriteResult rewrite(String name, Table table) {
    table.refresh();
    Plan plan = plan(name, table);
    if (plan.dataManifests <= 1 || plan.alreadyClustered()) {
      return plan.result(name, false, current(table), null);
    }
    table.rewriteManifests()
        .clusterBy(file -> table.specs().get(file.specId()).partitionToPath(file.partition()))
        .commit();
    table.refresh();
    Plan after = plan(name, table);
    return plan.result(name, true, current(table), after);
  }

  private static Long current(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? null : s.snapshotId();
  }

  static Plan plan(String name, Table table) {
    long target = PropertyUtil.propertyAsLong(table.properties(),
        TableProperties.MANIFEST_TARGET_SIZE_BYTES, TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    Plan plan = new Plan(target);
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return plan;
    }
    plan.deleteManifests = snapshot.deleteManifests(table.io()).size();
    for (ManifestFile m : snapshot.dataManifests(table.io())) {
      plan.dataManifests++;
      plan.dataManifestBytes += m.length();
      Set<String> keys = new HashSet<>();
      try (ManifestReader<DataFile> reader = ManifestFiles.read(m, table.io(), table.specs())
          .select(List.of("file_path", "partition"))) {
        for (DataFile f : reader) {
          String key = f.specId() + "/" + table.specs().get(f.specId()).partitionToPath(f.partition());
          keys.add(key);
          plan.entriesByPartition.merge(key, 1L, Long::sum);
          plan.manifestsByPartition.computeIfAbsent(key, k -> new HashSet<>()).add(m.path());
          plan.liveFiles++;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      plan.maxPartitionsInOneManifest = Math.max(plan.maxPartitionsInOneManifest, keys.size());
    }
    return plan;
  }

  static final class Plan {
    final long target;
    final Map<String, Long> entriesByPartition = new HashMap<>();
    final Map<String, Set<String>> manifestsByPartition = new HashMap<>();
    int dataManifests;
    long dataManifestBytes;
    int deleteManifests;
    long liveFiles;
    int maxPartitionsInOneManifest;

    Plan(long target) {
      this.target = target;
    }

    int expectedManifests() {
      if (liveFiles == 0) {
        return 0;
      }
      // the bytes an entry takes, from what the current manifests spend per live entry
      double bytesPerEntry = (double) dataManifestBytes / liveFiles;
      int expected = 0;
      for (long entries : entriesByPartition.values()) {
        expected += (int) Math.max(1, Math.ceil(entries * bytesPerEntry / target));
      }
      return expected;
    }

    boolean alreadyClustered() {
      return maxPartitionsInOneManifest <= 1
          && manifestsByPartition.values().stream().allMatch(s -> s.size() == 1);
    }

    ManifestRewriteResult result(String name, boolean committed, Long snapshotId, Plan after) {
      Plan a = after == null ? this : after;
      return new ManifestRewriteResult(name, committed, snapshotId, dataManifests, dataManifestBytes, deleteManifests,
          liveFiles, entriesByPartition.size(), target, expectedManifests(), alreadyClustered(),
          a.dataManifests, a.dataManifestBytes);
    }
  }
}
