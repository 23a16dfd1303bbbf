package dev.resurfacer.serve;

import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.MaintenanceRunner;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.TableFormat;
import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.policy.TablePolicy;
import dev.resurfacer.report.TableReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One catalog as {@code serve} sees it, over any format's {@link TableFormat}: list tables, read their
 * signals, and maintain one table through {@link MaintenanceRunner} (with the same lease as
 * {@code maintain}).
 */
public final class ServedCatalog<T> implements AutoCloseable {
  private final TableFormat<T> engine;
  private final List<OperationExecutor<?, T>> executors;
  private final List<dev.resurfacer.engines.ExecutionEngine> executionEngines;
  private final Advisor<T> advisor;

  /** The format's {@code advise}: the same code the CLI verb runs. */
  @FunctionalInterface
  public interface Advisor<T> {
    Advice advise(String name, T table, ScanReports.Loaded reports, double minGain);
  }

  public ServedCatalog(TableFormat<T> engine, List<OperationExecutor<?, T>> executors) {
    this(engine, executors, List.of());
  }

  /** @param executionEngines engines other than local that a table's {@code engine:} policy may name */
  public ServedCatalog(
      TableFormat<T> engine,
      List<OperationExecutor<?, T>> executors,
      List<dev.resurfacer.engines.ExecutionEngine> executionEngines) {
    this(engine, executors, executionEngines, null);
  }

  /** @param advisor the format's layout advice, or null when the format has none */
  public ServedCatalog(
      TableFormat<T> engine,
      List<OperationExecutor<?, T>> executors,
      List<dev.resurfacer.engines.ExecutionEngine> executionEngines,
      Advisor<T> advisor) {
    this.engine = engine;
    this.executors = List.copyOf(executors);
    this.executionEngines = List.copyOf(executionEngines);
    this.advisor = advisor;
  }

  /** A catalog opened through the generic entry point, as {@code serve} maintains it: the same format, executors and engines. */
  public static <T> ServedCatalog<T> of(dev.resurfacer.maintain.Resurfacer<T> resurfacer) {
    return new ServedCatalog<>(
        resurfacer.format(),
        resurfacer.customExecutors(),
        resurfacer.engines(),
        resurfacer.format().layoutAdvice().<Advisor<T>>map(a -> a::advise).orElse(null));
  }

  /** Whether this catalog's format can advise a layout. */
  public boolean advises() {
    return advisor != null;
  }

  /** {@code advise} on one table; only when {@link #advises}. */
  public Advice advise(String table, ScanReports.Loaded reports, double minGain) {
    return advisor.advise(table, engine.open(table), reports, minGain);
  }

  public String name() {
    return engine.catalogName();
  }

  public List<String> tables() {
    return engine.allTables();
  }

  public TableSignals signals(String table, Instant since) {
    return engine.signals(engine.open(table), since);
  }

  /** Small files counted only where a compaction with {@code minInputFiles} would rewrite them ({@link TableFormat#signals(Object, Instant, int)}). */
  public TableSignals signals(String table, Instant since, int minInputFiles) {
    return engine.signals(engine.open(table), since, minInputFiles);
  }

  /**
   * Runs the policy's operations on one table in commit mode; with {@code operations} named, only
   * those (each with the policy's settings, even where the policy switches it off for scheduled runs).
   */
  public TableReport maintain(
      String table, TablePolicy policy, List<String> operations, Duration lease) {
    MaintenanceRunner<T> runner = new MaintenanceRunner<>(
        engine, executors, executionEngines, 1, lease, dev.resurfacer.progress.Progress.NONE);
    // a policy names the operations of both formats; the table gets its own format's
    Maintain m = Maintain.fromPolicy(
            table, operations.isEmpty() ? policy : only(policy, operations))
        .retainOnly(runner::supports);
    return runner.run(new MaintenancePlan(List.of(m)), Mode.COMMIT).tables().get(0);
  }

  static TablePolicy only(TablePolicy p, List<String> ops) {
    return new TablePolicy(
        new TablePolicy.Compact(
            ops.contains("compact"),
            p.compact().strategy(),
            p.compact().orderBy(),
            p.compact().options()),
        new TablePolicy.Expire(
            ops.contains("expire"), p.expire().olderThan(), p.expire().retainLast()),
        new TablePolicy.RemoveOrphans(
            ops.contains("remove-orphans"),
            p.removeOrphans().olderThan(),
            p.removeOrphans().quarantine(),
            p.removeOrphans().quarantineRetention()),
        new TablePolicy.RemoveDanglingDeletes(ops.contains("remove-dangling-deletes")),
        new TablePolicy.RewriteManifests(
            ops.contains("rewrite-manifests"), p.rewriteManifests().sortBy()),
        new TablePolicy.Vacuum(
            ops.contains("vacuum"),
            p.vacuum().retention(),
            p.vacuum().lite(),
            p.vacuum().keepVersions()),
        new TablePolicy.Checkpoint(ops.contains("checkpoint")),
        new TablePolicy.CleanupLog(ops.contains("cleanup-log"), p.cleanupLog().retention()),
        new TablePolicy.ApplyRetention(
            ops.contains("apply-retention"),
            p.applyRetention().keep(),
            p.applyRetention().deleteAfterCommit()),
        new TablePolicy.Condense(
            ops.contains("condense"), p.condense().to(), p.condense().olderThan()),
        new TablePolicy.RewritePositionDeletes(
            ops.contains("rewrite-position-deletes"), p.rewritePositionDeletes().options()),
        new TablePolicy.ConvertEqualityDeletes(ops.contains("convert-equality-deletes")),
        new TablePolicy.ComputeStats(
            ops.contains("compute-stats"), p.computeStats().columns()),
        new TablePolicy.ComputePartitionStats(ops.contains("compute-partition-stats")),
        p.engine());
  }

  @Override
  public void close() {
    engine.close();
  }
}
