package dev.resurfacer.delta.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.maintain.MaintenanceRunner;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.report.RunReport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The library entry point for Delta tables: the tables of one {@code type: delta} catalog, with the
 * same plans, runner and reports as Iceberg's {@code Resurfacer}.
 *
 * <pre>
 * var plan = MaintenancePlan.of(
 *     Maintain.namespace("raw").vacuum().compact(),
 *     Maintain.table("staging.orders").vacuum(Duration.ofDays(7)).compact(256L &lt;&lt; 20));
 * RunReport report = DeltaResurfacer.connect(config.catalogs().get("deltas")).run(plan, Mode.COMMIT);
 * report.raiseIfErrors();
 * </pre>
 *
 * In {@link Mode#COMMIT} each table is leased for its run ({@code DeltaLease}), so two runs never
 * maintain one table at once: the second skips it.
 */
public final class DeltaResurfacer implements AutoCloseable {
  public static final Duration DEFAULT_LEASE = Duration.ofHours(6);

  private final DeltaEngine engine;
  private final List<OperationExecutor<?, DeltaTable>> custom;
  private final List<ExecutionEngine> executionEngines;
  private final int parallel;
  private final Duration lease;

  private DeltaResurfacer(DeltaEngine engine, List<OperationExecutor<?, DeltaTable>> custom, List<ExecutionEngine> executionEngines,
      int parallel, Duration lease) {
    this.engine = engine;
    this.custom = List.copyOf(custom);
    this.executionEngines = List.copyOf(executionEngines);
    this.parallel = parallel;
    this.lease = lease;
  }

  /** A delta catalog; relative table locations are resolved against the working directory. */
  public static DeltaResurfacer connect(CatalogConfig config) {
    return connect(config, Path.of("").toAbsolutePath());
  }

  public static DeltaResurfacer connect(CatalogConfig config, Path workingDir) {
    if (!config.isDelta()) {
      throw new UsageException("catalog '" + config.name() + "' is not a delta catalog (type " + config.type() + ")");
    }
    return new DeltaResurfacer(new DeltaEngine(config.name(),
        () -> dev.resurfacer.delta.table.DeltaDiscovery.tables(config, workingDir), workingDir,
        dev.resurfacer.delta.table.DeltaTables.settings(config), Clock.systemUTC(),
        dev.resurfacer.storage.StorageFences.forCatalogs(List.of(config), null, workingDir)), List.of(), List.of(), 1,
        DEFAULT_LEASE);
  }

  /**
   * What vacuum respects beyond each table: by default the tables of this catalog; give fences over
   * every catalog you use (Iceberg ones included) so a table of either format elsewhere is seen too.
   */
  public DeltaResurfacer storageFences(dev.resurfacer.storage.StorageFences fences) {
    return new DeltaResurfacer(engine.withFences(fences), custom, executionEngines, parallel, lease);
  }

  /** Adds the executor of a custom operation (or replaces a built-in one of the same type). */
  public DeltaResurfacer register(OperationExecutor<?, DeltaTable> executor) {
    List<OperationExecutor<?, DeltaTable>> all = new ArrayList<>(custom);
    all.add(executor);
    return new DeltaResurfacer(engine, all, executionEngines, parallel, lease);
  }

  public DeltaResurfacer parallel(int tables) {
    return new DeltaResurfacer(engine, custom, executionEngines, tables, lease);
  }

  public DeltaResurfacer leaseDuration(Duration duration) {
    return new DeltaResurfacer(engine, custom, executionEngines, parallel, duration);
  }

  /**
   * Execution engines a plan entry may name with {@link dev.resurfacer.maintain.Maintain#engine(String)}
   * (the local engine is always there). The caller opened them and closes them.
   */
  public DeltaResurfacer executionEngines(List<ExecutionEngine> engines) {
    return new DeltaResurfacer(engine, custom, engines, parallel, lease);
  }

  /** This catalog as {@code serve} watches and maintains it (serve passes its own lease duration to each run). */
  public dev.resurfacer.serve.ServedCatalog<DeltaTable> served() {
    return new dev.resurfacer.serve.ServedCatalog<>(engine, custom, executionEngines,
        (name, t, reports, minGain) -> dev.resurfacer.delta.compact.DeltaLayouts.advise(name, t, reports, minGain));
  }

  public List<String> tables() {
    return engine.allTables();
  }

  public String catalogName() {
    return engine.catalogName();
  }

  /** Whether Delta tables have {@code operation} (vacuum does; expire does not): what a policy is filtered by. */
  public boolean supports(Operation operation) {
    return runner().supports(operation);
  }

  public RunReport run(MaintenancePlan plan, Mode mode) {
    return runner().run(plan, mode);
  }

  private MaintenanceRunner<DeltaTable> runner() {
    return new MaintenanceRunner<>(engine, custom, executionEngines, parallel, lease, dev.resurfacer.progress.Progress.NONE);
  }

  @Override
  public void close() {
    engine.close();
  }
}
