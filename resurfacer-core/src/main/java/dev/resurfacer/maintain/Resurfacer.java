package dev.resurfacer.maintain;

import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.storage.StorageFences;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The library entry point: maintain the tables of one catalog, of any format, from your own JVM. Each
 * format supplies the factory that opens its catalog ({@code IcebergResurfacer}, {@code DeltaResurfacer});
 * {@link dev.resurfacer.formats.Formats#connect} picks it by the catalog's type.
 *
 * <pre>
 * var plan = MaintenancePlan.of(
 *     Maintain.namespace("raw").compact().expireSnapshots(Duration.ofDays(5), 1),
 *     Maintain.table("analytics.events").compact(Map.of("min-input-files", "2")).removeOrphans(Duration.ofDays(3)));
 * try (Resurfacer&lt;IcebergTable&gt; r = IcebergResurfacer.connect(catalogConfig)) {
 *   RunReport report = r.run(plan, Mode.COMMIT);
 *   report.raiseIfErrors();
 * }
 * </pre>
 *
 * Configuration methods return a new instance; the catalog is shared and closed by {@link #close()}.
 * In {@link Mode#COMMIT} each table is leased for the duration of its run, so two runs never maintain
 * one table at once: the second skips it.
 *
 * @param <T> the format's handle for one open table
 */
public final class Resurfacer<T> implements AutoCloseable {
  /** How long a lease lasts if its run dies without releasing it. */
  public static final Duration DEFAULT_LEASE = Duration.ofHours(6);

  private final TableFormat<T> format;
  private final List<OperationExecutor<?, T>> custom;
  private final List<ExecutionEngine> executionEngines;
  private final int parallel;
  private final Duration lease;

  private Resurfacer(
      TableFormat<T> format,
      List<OperationExecutor<?, T>> custom,
      List<ExecutionEngine> executionEngines,
      int parallel,
      Duration lease) {
    this.format = format;
    this.custom = List.copyOf(custom);
    this.executionEngines = List.copyOf(executionEngines);
    this.parallel = parallel;
    this.lease = lease;
  }

  /** Maintains the tables {@code format} lists; {@link #close()} closes it. */
  public static <T> Resurfacer<T> over(TableFormat<T> format) {
    return new Resurfacer<>(format, List.of(), List.of(), 1, DEFAULT_LEASE);
  }

  /**
   * The tables and files destructive steps (orphan removal, vacuum) must respect: share one instance
   * between the runs of several catalogs, of either format, so every table of every catalog is checked,
   * with one index per run.
   */
  public Resurfacer<T> fences(StorageFences fences) {
    return new Resurfacer<>(format.withFences(fences), custom, executionEngines, parallel, lease);
  }

  /** Adds the executor of a custom operation (or replaces a built-in one of the same type). */
  public Resurfacer<T> register(OperationExecutor<?, T> executor) {
    List<OperationExecutor<?, T>> all = new ArrayList<>(custom);
    all.add(executor);
    return new Resurfacer<>(format, all, executionEngines, parallel, lease);
  }

  /** Tables maintained at once (operations within a table always run one after another). */
  public Resurfacer<T> parallel(int tables) {
    return new Resurfacer<>(format, custom, executionEngines, tables, lease);
  }

  /** Where the run reports its tables and operations, and each operation its own work (nothing by default). */
  public Resurfacer<T> progress(Progress progress) {
    return new Resurfacer<>(
        format.withProgress(progress), custom, executionEngines, parallel, lease);
  }

  public Resurfacer<T> leaseDuration(Duration duration) {
    return new Resurfacer<>(format, custom, executionEngines, parallel, duration);
  }

  /**
   * Execution engines a plan entry may name with {@link Maintain#engine(String)} (the local engine is
   * always there). The caller opened them and closes them.
   */
  public Resurfacer<T> executionEngines(List<ExecutionEngine> engines) {
    return new Resurfacer<>(format, custom, engines, parallel, lease);
  }

  /** The format adapter this runs over: what {@code serve} watches. */
  public TableFormat<T> format() {
    return format;
  }

  /** The executors added with {@link #register}. */
  public List<OperationExecutor<?, T>> customExecutors() {
    return custom;
  }

  /** The execution engines given with {@link #executionEngines(List)}. */
  public List<ExecutionEngine> engines() {
    return executionEngines;
  }

  /** Every table ({@code namespace.table}) of the catalog. */
  public List<String> tables() {
    return format.allTables();
  }

  public String catalogName() {
    return format.catalogName();
  }

  /** Whether this format's tables have {@code operation} (Iceberg: expire, no vacuum; Delta the other way): what a policy is filtered by. */
  public boolean supports(Operation operation) {
    return runner().supports(operation);
  }

  public RunReport run(MaintenancePlan plan, Mode mode) {
    return runner().run(plan, mode);
  }

  private MaintenanceRunner<T> runner() {
    return new MaintenanceRunner<>(
        format, custom, executionEngines, parallel, lease, format.progress());
  }

  @Override
  public void close() {
    format.close();
  }
}
