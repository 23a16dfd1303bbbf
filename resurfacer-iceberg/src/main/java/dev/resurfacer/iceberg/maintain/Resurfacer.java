package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.MaintenanceRunner;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.RunReport;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;

/**
 * The library entry point: maintain Iceberg tables of one catalog from your own JVM.
 *
 * <pre>
 * var plan = MaintenancePlan.of(
 *     Maintain.namespace("raw").compact().expireSnapshots(Duration.ofDays(5), 1),
 *     Maintain.table("analytics.events").compact(Map.of("min-input-files", "2")).removeOrphans(Duration.ofDays(3)));
 * try (Resurfacer r = Resurfacer.connect(catalogConfig)) {
 *   RunReport report = r.run(plan, Mode.COMMIT);
 *   report.raiseIfErrors();
 * }
 * </pre>
 *
 * Configuration methods return a new instance; the catalog is shared and closed by {@link #close()}.
 * In {@link Mode#COMMIT} each table is leased for the duration of its run (see {@code TableLease}), so
 * two runs never maintain one table at once: the second skips it.
 */
public final class Resurfacer implements AutoCloseable {
  /** How long a lease lasts if its run dies without releasing it. */
  public static final Duration DEFAULT_LEASE = Duration.ofHours(6);

  private final IcebergEngine engine;
  private final List<OperationExecutor<?, IcebergTable>> custom;
  private final List<ExecutionEngine> executionEngines;
  private final int parallel;
  private final Duration lease;

  private Resurfacer(IcebergEngine engine, List<OperationExecutor<?, IcebergTable>> custom, List<ExecutionEngine> executionEngines,
      int parallel, Duration lease) {
    this.engine = engine;
    this.custom = List.copyOf(custom);
    this.executionEngines = List.copyOf(executionEngines);
    this.parallel = parallel;
    this.lease = lease;
  }

  /** Opens the catalog; orphan removal checks every table of its database (every catalog name of a JDBC one). */
  public static Resurfacer connect(CatalogConfig config) {
    return connect(Catalogs.open(config)).orphanFences(StorageFences.forCatalogs(List.of(config), null));
  }

  /**
   * Uses a catalog you already opened; {@link #close()} closes it. Orphan removal checks the tables
   * this catalog lists; give {@link #orphanFences} to check more.
   */
  public static Resurfacer connect(Catalog catalog) {
    return new Resurfacer(new IcebergEngine(catalog, Clock.systemUTC(), null, Progress.NONE), List.of(), List.of(), 1, DEFAULT_LEASE);
  }

  /**
   * The tables and files orphan removal must respect: share one instance between the runs of
   * several catalogs so every table of every catalog is checked, with one index per run.
   */
  public Resurfacer orphanFences(StorageFences fences) {
    return new Resurfacer(engine.withFences(fences), custom, executionEngines, parallel, lease);
  }

  /** Adds the executor of a custom operation (or replaces a built-in one of the same type). */
  public Resurfacer register(OperationExecutor<?, IcebergTable> executor) {
    List<OperationExecutor<?, IcebergTable>> all = new ArrayList<>(custom);
    all.add(executor);
    return new Resurfacer(engine, all, executionEngines, parallel, lease);
  }

  /** Tables maintained at once (operations within a table always run one after another). */
  public Resurfacer parallel(int tables) {
    return new Resurfacer(engine, custom, executionEngines, tables, lease);
  }

  /** Where the run reports its tables and operations, and each operation its own work (nothing by default). */
  public Resurfacer progress(Progress progress) {
    return new Resurfacer(engine.withProgress(progress), custom, executionEngines, parallel, lease);
  }

  public Resurfacer leaseDuration(Duration duration) {
    return new Resurfacer(engine, custom, executionEngines, parallel, duration);
  }

  /**
   * Execution engines a plan entry may name with {@link dev.resurfacer.maintain.Maintain#engine(String)}
   * (the local engine is always there). The caller opened them and closes them.
   */
  public Resurfacer executionEngines(List<ExecutionEngine> engines) {
    return new Resurfacer(engine, custom, engines, parallel, lease);
  }

  /** Every table ({@code namespace.table}) of the catalog. */
  public List<String> tables() {
    return engine.allTables();
  }

  public String catalogName() {
    return engine.catalogName();
  }

  /**
   * This catalog as {@code serve} maintains it: the same engine, executors (custom ones included)
   * and lease as {@link #run}.
   */
  public dev.resurfacer.serve.ServedCatalog<IcebergTable> served() {
    return new dev.resurfacer.serve.ServedCatalog<>(engine, custom, executionEngines,
        (name, t, reports, minGain) -> dev.resurfacer.iceberg.layout.IcebergLayouts.advise(name, t.table(), reports, minGain));
  }

  /** Whether Iceberg tables have {@code operation} (expire does; vacuum does not): what a policy is filtered by. */
  public boolean supports(dev.resurfacer.maintain.Operation operation) {
    return runner().supports(operation);
  }

  public RunReport run(MaintenancePlan plan, Mode mode) {
    return runner().run(plan, mode);
  }

  private MaintenanceRunner<IcebergTable> runner() {
    return new MaintenanceRunner<>(engine, custom, executionEngines, parallel, lease, engine.progress());
  }

  @Override
  public void close() {
    engine.close();
  }
}
