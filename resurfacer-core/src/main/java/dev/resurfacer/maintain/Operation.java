package dev.resurfacer.maintain;

/**
 * One maintenance step on one table. The built-in set is closed (records in this package); anything
 * else is a {@link CustomOperation} run by an {@link OperationExecutor} registered with the runner.
 *
 * <p>{@link #order()} places the step within a table's run: a format upgrade (never a policy's) → retention →
 * condense → compact → deletes →
 * manifests → stats → expire → orphans. Retention settings come first so every later commit honours
 * them; condensing and compaction supersede files; delete files are tidied (dangling ones dropped,
 * equality deletes resolved, position deletes compacted or turned into vectors) and manifests
 * regrouped next; statistics then describe the final snapshot; expiry frees what was superseded, and
 * orphan removal sweeps what nothing ever referenced. Delta tables: compaction, then vacuum (Delta's
 * expiry and orphan removal in one), then a checkpoint, and log cleanup last, since it needs a
 * checkpoint to keep. Each format runs the operations it has executors for. Steps with equal order
 * keep the order they were declared in.
 */
public sealed interface Operation
    permits UpgradeFormat,
        ApplyRetention,
        Condense,
        Compact,
        SettingsFreeOperation,
        RewritePositionDeletes,
        RewriteManifests,
        ComputeStats,
        ExpireSnapshots,
        RemoveOrphans,
        Vacuum,
        CleanupLog,
        CustomOperation {

  int UPGRADE_FORMAT = 50;
  int APPLY_RETENTION = 100;
  int CONDENSE = 200;
  int COMPACT = 300;
  int REMOVE_DANGLING_DELETES = 400;
  int CONVERT_EQUALITY_DELETES = 420;
  int REWRITE_POSITION_DELETES = 440;
  int REWRITE_MANIFESTS = 500;
  int COMPUTE_STATS = 550;
  int COMPUTE_PARTITION_STATS = 560;
  int EXPIRE_SNAPSHOTS = 600;
  int REMOVE_ORPHANS = 700;
  int VACUUM = 700;
  int CHECKPOINT = 800;
  int CLEANUP_LOG = 850;

  /** The name reports and logs use, e.g. {@code compact}; one operation per name per table. */
  String name();

  int order();

  /**
   * The settings this step carries beyond a plain run of it, by policy key (e.g. {@code sort-by}): what
   * an execution engine's capability may declare it has no argument for
   * ({@link dev.resurfacer.engines.EngineCapability#refusedSettings()}), so the step is refused rather
   * than run without them.
   */
  default java.util.Set<String> givenSettings() {
    return java.util.Set.of();
  }

  /**
   * The verbs to run instead on a table of {@code format}, which this operation is not declared for,
   * said in its refusal ({@link dev.resurfacer.dispatch.Dispatcher}); empty when there is nothing to suggest.
   */
  default String insteadOn(dev.resurfacer.formats.Format format) {
    return "";
  }
}
