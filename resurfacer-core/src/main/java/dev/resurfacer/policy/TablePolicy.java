package dev.resurfacer.policy;

import java.time.Duration;
import java.util.Map;

/**
 * What maintenance one table gets: the effective policy after {@code defaults:} and every matching
 * {@code tables:} entry were applied. Format-neutral; an engine turns it into operations.
 *
 * <pre>
 * TablePolicy p = policies.effective("raw.events").policy();
 * if (p.compact().enabled()) { ... p.compact().options().get("target-file-size-bytes") ... }
 * p.engine();   // "local", or the {@code engine:} the policy names, e.g. "spark"
 * </pre>
 */
public record TablePolicy(
    Compact compact,
    Expire expire,
    RemoveOrphans removeOrphans,
    RemoveDanglingDeletes removeDanglingDeletes,
    RewriteManifests rewriteManifests,
    Vacuum vacuum,
    Checkpoint checkpoint,
    CleanupLog cleanupLog,
    ApplyRetention applyRetention,
    Condense condense,
    RewritePositionDeletes rewritePositionDeletes,
    ConvertEqualityDeletes convertEqualityDeletes,
    ComputeStats computeStats,
    ComputePartitionStats computePartitionStats,
    String engine) {

  /** The engine a table runs on unless {@code engine:} says otherwise. */
  public static final String LOCAL_ENGINE = "local";

  /**
   * The reclaiming operations on, with the engines' own defaults (Spark's option defaults, table
   * properties, a 3-day orphan guard), except the Delta checkpoint (see {@link Checkpoint}); the
   * operations that change a table's layout, properties or delete representation, or read every row
   * (retention, condense, delete conversions, statistics) only when a policy enables them.
   */
  public static final TablePolicy BUILT_IN = new TablePolicy(
      new Compact(true, "binpack", null, Map.of()),
      new Expire(true, null, null),
      new RemoveOrphans(true, Duration.ofDays(3), false, Duration.ofDays(7)),
      new RemoveDanglingDeletes(true),
      new RewriteManifests(true),
      new Vacuum(true, null),
      new Checkpoint(false),
      new CleanupLog(true, null),
      new ApplyRetention(false, 100, true),
      new Condense(false, "month", Duration.ofDays(90)),
      new RewritePositionDeletes(false, Map.of()),
      new ConvertEqualityDeletes(false),
      new ComputeStats(false, java.util.List.of()),
      new ComputePartitionStats(false),
      LOCAL_ENGINE);

  /**
   * @param strategy {@code binpack}, {@code sort} or {@code zorder}
   * @param orderBy with sort: the {@code sort-by} list (null: the table's sort order); with zorder: the
   *     columns, comma-separated; null for binpack
   * @param options rewrite options by their Spark {@code rewrite_data_files} names, e.g. {@code target-file-size-bytes}
   */
  public record Compact(
      boolean enabled, String strategy, String orderBy, Map<String, String> options) {
    public Compact {
      options = Map.copyOf(options);
    }
  }

  /**
   * @param olderThan expire snapshots older than this; null means the table's {@code history.expire.max-snapshot-age-ms}
   * @param retainLast keep at least this many per branch; null means {@code history.expire.min-snapshots-to-keep}
   */
  public record Expire(boolean enabled, Duration olderThan, Integer retainLast) {}

  /**
   * @param olderThan the age guard: only files older than this can be deleted
   * @param listing a storage listing to read instead of listing storage (an S3 Inventory manifest.json or a plain list); null lists storage
   */
  public record RemoveOrphans(
      boolean enabled,
      Duration olderThan,
      boolean quarantine,
      Duration quarantineRetention,
      String listing) {
    public RemoveOrphans(
        boolean enabled, Duration olderThan, boolean quarantine, Duration quarantineRetention) {
      this(enabled, olderThan, quarantine, quarantineRetention, null);
    }
  }

  public record RemoveDanglingDeletes(boolean enabled) {}

  /** @param sortBy partition field names manifests are clustered by, in order; empty for the whole partition */
  public record RewriteManifests(boolean enabled, java.util.List<String> sortBy) {
    public RewriteManifests {
      sortBy = java.util.List.copyOf(sortBy);
    }

    public RewriteManifests(boolean enabled) {
      this(enabled, java.util.List.of());
    }
  }

  /**
   * Delta.
   *
   * @param retention null means the table's {@code delta.deletedFileRetentionDuration} (7 days)
   * @param lite only files the log's tombstones name (Delta's {@code VACUUM … LITE}), no listing
   * @param keepVersions versions whose files are never deleted, for time travel
   */
  public record Vacuum(
      boolean enabled, Duration retention, boolean lite, java.util.List<Long> keepVersions) {
    public Vacuum {
      keepVersions =
          keepVersions == null ? java.util.List.of() : java.util.List.copyOf(keepVersions);
    }

    public Vacuum(boolean enabled, Duration retention) {
      this(enabled, retention, false, java.util.List.of());
    }
  }

  /**
   * Delta. Off unless turned on: Delta writers checkpoint every {@code delta.checkpointInterval}
   * commits themselves; turn it on for tables whose writers do not.
   */
  public record Checkpoint(boolean enabled) {}

  /** Delta. @param retention null means the table's {@code delta.logRetentionDuration} (30 days) */
  public record CleanupLog(boolean enabled, Duration retention) {}

  /** @param keep metadata.json versions kept in the log ({@code write.metadata.previous-versions-max}) */
  public record ApplyRetention(boolean enabled, int keep, boolean deleteAfterCommit) {}

  /** @param to {@code day}, {@code month} or {@code year} */
  public record Condense(boolean enabled, String to, Duration olderThan) {}

  /** @param options by Spark's {@code rewrite_position_delete_files} names (format v2 tables) */
  public record RewritePositionDeletes(boolean enabled, Map<String, String> options) {
    public RewritePositionDeletes {
      options = Map.copyOf(options);
    }
  }

  public record ConvertEqualityDeletes(boolean enabled) {}

  /** @param columns columns to sketch; empty for every primitive top-level column */
  public record ComputeStats(boolean enabled, java.util.List<String> columns) {
    public ComputeStats {
      columns = java.util.List.copyOf(columns);
    }
  }

  public record ComputePartitionStats(boolean enabled) {}
}
