package dev.resurfacer.maintain;

import dev.resurfacer.policy.TablePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which tables to maintain and how: an immutable spec built fluently. Each call returns a new spec.
 *
 * <pre>
 * Maintain.namespace("raw").compact().expireSnapshots(Duration.ofDays(5), 1)
 * Maintain.table("analytics.events").compact(Map.of("min-input-files", "2")).removeOrphans(Duration.ofDays(3))
 * Maintain.table("staging.orders").vacuum(Duration.ofDays(7)).zOrder("run_date", "_id")   // a Delta table
 * </pre>
 *
 * Declaring an operation a second time replaces the first declaration.
 *
 * @param target {@code namespace.table}, or a namespace when {@code namespace} is true
 * @param engine the execution engine that runs the built-in operations ({@code local}, {@code spark}, ...)
 */
public record Maintain(
    String target, boolean namespace, List<Operation> operations, String engine) {
  public Maintain {
    if (target == null || target.isBlank()) {
      throw new IllegalArgumentException("target must not be empty");
    }
    operations = List.copyOf(operations);
    engine = engine == null ? TablePolicy.LOCAL_ENGINE : engine;
  }

  public Maintain(String target, boolean namespace, List<Operation> operations) {
    this(target, namespace, operations, TablePolicy.LOCAL_ENGINE);
  }

  /** Runs the built-in operations on this execution engine, e.g. {@code spark}; custom operations always run here. */
  public Maintain engine(String name) {
    return new Maintain(target, namespace, operations, name);
  }

  /** @param name {@code namespace.table}, parts quoted as {@link dev.resurfacer.names.Identifiers} describes */
  public static Maintain table(String name) {
    if (!name.contains(".")) {
      throw new IllegalArgumentException("table must be namespace.table (got '" + name + "')");
    }
    return new Maintain(name, false, List.of());
  }

  public static Maintain namespace(String name) {
    return new Maintain(name, true, List.of());
  }

  /** Every operation the policy enables, with its settings. */
  public static Maintain fromPolicy(String table, TablePolicy p) {
    Maintain m = table(table).engine(p.engine());
    if (p.applyRetention().enabled()) {
      m = m.then(
          new ApplyRetention(p.applyRetention().keep(), p.applyRetention().deleteAfterCommit()));
    }
    if (p.condense().enabled()) {
      m = m.then(new Condense(p.condense().to(), p.condense().olderThan()));
    }
    if (p.compact().enabled()) {
      m = m.then(
          new Compact(p.compact().strategy(), p.compact().orderBy(), p.compact().options()));
    }
    if (p.removeDanglingDeletes().enabled()) {
      m = m.removeDanglingDeletes();
    }
    if (p.convertEqualityDeletes().enabled()) {
      m = m.then(new ConvertEqualityDeletes());
    }
    if (p.rewritePositionDeletes().enabled()) {
      m = m.then(new RewritePositionDeletes(p.rewritePositionDeletes().options()));
    }
    if (p.rewriteManifests().enabled()) {
      m = m.then(new RewriteManifests(p.rewriteManifests().sortBy()));
    }
    if (p.computeStats().enabled()) {
      m = m.then(new ComputeStats(p.computeStats().columns()));
    }
    if (p.computePartitionStats().enabled()) {
      m = m.then(new ComputePartitionStats());
    }
    if (p.expire().enabled()) {
      m = m.then(new ExpireSnapshots(p.expire().olderThan(), p.expire().retainLast()));
    }
    if (p.removeOrphans().enabled()) {
      m = m.then(new RemoveOrphans(
          p.removeOrphans().olderThan(),
          p.removeOrphans().quarantine(),
          p.removeOrphans().quarantineRetention(),
          p.removeOrphans().listing()));
    }
    if (p.vacuum().enabled()) {
      m = m.then(new Vacuum(
          p.vacuum().retention(), false, p.vacuum().lite(), p.vacuum().keepVersions()));
    }
    if (p.checkpoint().enabled()) {
      m = m.then(new Checkpoint());
    }
    if (p.cleanupLog().enabled()) {
      m = m.then(new CleanupLog(p.cleanupLog().retention()));
    }
    return m;
  }

  /**
   * Only the operations {@code applies} accepts: a policy names the operations of every format, and
   * each table gets those its format has (Iceberg: expire, remove-orphans, ...; Delta: vacuum, checkpoint, ...).
   */
  public Maintain retainOnly(java.util.function.Predicate<Operation> applies) {
    return new Maintain(target, namespace, operations.stream().filter(applies).toList(), engine);
  }

  /** Bin-pack with Spark's defaults. */
  public Maintain compact() {
    return then(Compact.binpack());
  }

  /** Bin-pack with Spark-named options, e.g. {@code target-file-size-bytes}, {@code min-input-files}. */
  public Maintain compact(Map<String, String> options) {
    return then(new Compact("binpack", null, options));
  }

  /** Bin-pack into files of {@code targetFileSizeBytes}. */
  public Maintain compact(long targetFileSizeBytes) {
    return then(
        Compact.binpack().withOption("target-file-size-bytes", Long.toString(targetFileSizeBytes)));
  }

  /** Rewrite into files clustered by the z-value of {@code columns}. */
  public Maintain zOrder(String... columns) {
    return then(Compact.zOrder(columns));
  }

  /** Delta: vacuum with the table's {@code delta.deletedFileRetentionDuration}. */
  public Maintain vacuum() {
    return then(Vacuum.tableDefaults());
  }

  /** Delta: vacuum keeping removed files for {@code retention}; shorter than the table's retention is refused. */
  public Maintain vacuum(Duration retention) {
    return then(new Vacuum(retention, false));
  }

  /** Delta: write a checkpoint of the latest version. */
  public Maintain checkpoint() {
    return then(new Checkpoint());
  }

  /** Delta: delete log entries past the table's {@code delta.logRetentionDuration}. */
  public Maintain cleanupLog() {
    return then(CleanupLog.tableDefaults());
  }

  public Maintain removeDanglingDeletes() {
    return then(new RemoveDanglingDeletes());
  }

  public Maintain rewriteManifests() {
    return then(new RewriteManifests());
  }

  /** Manifests clustered by these partition fields, in order. */
  public Maintain rewriteManifests(String... sortBy) {
    return then(new RewriteManifests(List.of(sortBy)));
  }

  /** Expiry by the table's own retention properties. */
  public Maintain expireSnapshots() {
    return then(ExpireSnapshots.tableDefaults());
  }

  public Maintain expireSnapshots(Duration olderThan, int retainLast) {
    return then(new ExpireSnapshots(olderThan, retainLast));
  }

  public Maintain removeOrphans(Duration olderThan) {
    return then(new RemoveOrphans(olderThan));
  }

  public Maintain applyRetention(int keep) {
    return then(new ApplyRetention(keep, true));
  }

  /** @param to {@code day}, {@code month} or {@code year} */
  public Maintain condense(String to, Duration olderThan) {
    return then(new Condense(to, olderThan));
  }

  public Maintain rewritePositionDeletes() {
    return then(new RewritePositionDeletes(Map.of()));
  }

  public Maintain convertEqualityDeletes() {
    return then(new ConvertEqualityDeletes());
  }

  /** Distinct-value sketches for {@code columns}, or every primitive top-level column when none are named. */
  public Maintain computeStats(String... columns) {
    return then(new ComputeStats(List.of(columns)));
  }

  public Maintain computePartitionStats() {
    return then(new ComputePartitionStats());
  }

  /** Adds any operation, built-in or custom. */
  public Maintain then(Operation operation) {
    List<Operation> ops = new ArrayList<>();
    for (Operation o : operations) {
      if (!o.name().equals(operation.name())) {
        ops.add(o);
      }
    }
    ops.add(operation);
    return new Maintain(target, namespace, ops, engine);
  }
}
