package dev.resurfacer.maintain;

/**
 * One maintenance step on one table. The built-in set is closed (records in this package); anything
 * else is a {@link CustomOperation} run by an {@link OperationExecutor} registered with the runner.
 *
 * <p>{@link #order()} places the step within a table's run: compaction supersedes files, dangling
 * deletes and manifests are tidied next, expiry then frees superseded files, and orphan removal
 * sweeps what nothing ever referenced. Delta tables: compaction, then vacuum (Delta's expiry and
 * orphan removal in one), then a checkpoint, and log cleanup last, since it needs a checkpoint to keep.
 * Each format runs the operations it has executors for. Steps with equal order keep the order they
 * were declared in.
 */
public sealed interface Operation
    permits Compact, RemoveDanglingDeletes, RewriteManifests, ExpireSnapshots, RemoveOrphans, Vacuum, Checkpoint, CleanupLog,
    CustomOperation {

  int COMPACT = 300;
  int REMOVE_DANGLING_DELETES = 400;
  int REWRITE_MANIFESTS = 500;
  int EXPIRE_SNAPSHOTS = 600;
  int REMOVE_ORPHANS = 700;
  int VACUUM = 700;
  int CHECKPOINT = 800;
  int CLEANUP_LOG = 850;

  /** The name reports and logs use, e.g. {@code compact}; one operation per name per table. */
  String name();

  int order();
}
