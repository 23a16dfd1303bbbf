package dev.resurfacer.iceberg.manifests;

import dev.resurfacer.UsageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
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

  /**
   * What {@link #execute} would do: the data manifests as they are, and the key they would be
   * clustered by. {@link #preview()} is the plan as a result that changed nothing.
   */
  public static final class Plan {
    private final String name;
    private final Table table;
    private final Function<DataFile, String> key;
    private final Tally tally;
    private final Long snapshotId;

    private Plan(
        String name, Table table, Function<DataFile, String> key, Tally tally, Long snapshotId) {
      this.name = name;
      this.table = table;
      this.key = key;
      this.tally = tally;
      this.snapshotId = snapshotId;
    }

    /** Counts and the expected outcome; nothing committed. */
    public ManifestRewriteResult preview() {
      return tally.result(name, false, snapshotId, null);
    }
  }

  /** Reads manifests; writes nothing. */
  public static Plan plan(String name, Table table) {
    return plan(name, table, List.of());
  }

  /** @param sortBy partition field names to cluster by, in order; empty for the whole partition */
  public static Plan plan(String name, Table table, List<String> sortBy) {
    table.refresh();
    Function<DataFile, String> key = clusterKey(table, sortBy);
    return new Plan(name, table, key, tally(table, key), current(table));
  }

  /**
   * Rewrites the data manifests clustered by the plan's key, unless they already are: a scan
   * filtering on those fields opens the fewest manifests.
   */
  public static ManifestRewriteResult execute(Plan plan) {
    ManifestRewriteResult unchanged = plan.preview();
    if (unchanged.notNeeded().isPresent()) {
      return unchanged;
    }
    Table table = plan.table;
    table.rewriteManifests().clusterBy(plan.key::apply).commit();
    table.refresh();
    return plan.tally.result(plan.name, true, current(table), tally(table, plan.key));
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
        throw new UsageException(
            "rewrite-manifests sort-by: " + table.name() + " has no partition field '" + field
                + "' (partition fields: " + String.join(", ", known) + ")");
      }
    }
    return file -> {
      List<org.apache.iceberg.PartitionField> fields =
          table.specs().get(file.specId()).fields();
      StringBuilder b = new StringBuilder();
      for (String field : sortBy) {
        int pos = -1;
        for (int i = 0; i < fields.size(); i++) {
          if (fields.get(i).name().equals(field)) {
            pos = i;
          }
        }
        b.append(field)
            .append('=')
            .append(pos < 0 ? "null" : String.valueOf(file.partition().get(pos, Object.class)))
            .append('/');
      }
      return b.toString();
    };
  }

  private static Long current(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? null : s.snapshotId();
  }

  static Tally tally(Table table, Function<DataFile, String> clusterKey) {
    long target = PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.MANIFEST_TARGET_SIZE_BYTES,
        TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    Tally plan = new Tally(target);
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

  /** The data manifests' counts and how their entries fall into partitions. */
  static final class Tally {
    final long target;
    final Map<String, Long> entriesByPartition = new HashMap<>();
    final Map<String, Set<String>> manifestsByPartition = new HashMap<>();
    int dataManifests;
    long dataManifestBytes;
    int deleteManifests;
    long liveFiles;
    int maxPartitionsInOneManifest;

    Tally(long target) {
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

    ManifestRewriteResult result(String name, boolean committed, Long snapshotId, Tally after) {
      Tally a = after == null ? this : after;
      return new ManifestRewriteResult(
          name,
          committed,
          snapshotId,
          dataManifests,
          dataManifestBytes,
          deleteManifests,
          liveFiles,
          entriesByPartition.size(),
          target,
          expectedManifests(),
          alreadyClustered(),
          a.dataManifests,
          a.dataManifestBytes);
    }
  }
}
