package dev.resurfacer.iceberg.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import dev.resurfacer.UsageException;
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
    return preview(name, table, List.of());
  }

  /** @param sortBy partition field names to cluster by, in order; empty for the whole partition */
  public static ManifestRewriteResult preview(String name, Table table, List<String> sortBy) {
    table.refresh();
    return plan(name, table, clusterKey(table, sortBy)).result(name, false, current(table), null);
  }

  /** Rewrites the data manifests clustered by partition, unless they already are. */
  public static ManifestRewriteResult rewrite(String name, Table table) {
    return rewrite(name, table, List.of());
  }

  /**
   * Rewrites the data manifests clustered by the values of {@code sortBy} (partition field names; empty
   * for the whole partition), unless they already are: a scan filtering on those fields opens the
   * fewest manifests.
   */
  public static ManifestRewriteResult rewrite(String name, Table table, List<String> sortBy) {
    table.refresh();
    Function<DataFile, String> key = clusterKey(table, sortBy);
    Plan plan = plan(name, table, key);
    ManifestRewriteResult unchanged = plan.result(name, false, current(table), null);
    if (unchanged.notNeeded().isPresent()) {
      return unchanged;
    }
    table.rewriteManifests().clusterBy(key::apply).commit();
    table.refresh();
    Plan after = plan(name, table, key);
    return plan.result(name, true, current(table), after);
  }

  /** The value manifests are clustered by: the chosen partition fields' values, a field a spec lacks counting as null. */
  static Function<DataFile, String> clusterKey(Table table, List<String> sortBy) {
    if (sortBy.isEmpty()) {
      return file -> table.specs().get(file.specId()).partitionToPath(file.partition());
    }
    Set<String> known = new java.util.TreeSet<>();
    table.specs().values().forEach(spec -> spec.fields().forEach(f -> known.add(f.name())));
    for (String field : sortBy) {
      if (!known.contains(field)) {
        throw new UsageException("rewrite-manifests sort-by: " + table.name() + " has no partition field '" + field + "' (partition fields: "
            + String.join(", ", known) + ")");
      }
    }
    return file -> {
      List<org.apache.iceberg.PartitionField> fields = table.specs().get(file.specId()).fields();
      StringBuilder b = new StringBuilder();
      for (String field : sortBy) {
        int pos = -1;
        for (int i = 0; i < fields.size(); i++) {
          if (fields.get(i).name().equals(field)) {
            pos = i;
          }
        }
        b.append(field).append('=').append(pos < 0 ? "null" : String.valueOf(file.partition().get(pos, Object.class))).append('/');
      }
      return b.toString();
    };
  }

  private static Long current(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? null : s.snapshotId();
  }

  static Plan plan(String name, Table table, Function<DataFile, String> clusterKey) {
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
          String key = f.specId() + "/" + clusterKey.apply(f);
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
