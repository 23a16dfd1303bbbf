package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.maintain.DeltaResurfacer;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.iceberg.maintain.Resurfacer;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.RunReport;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One configured catalog opened for {@code maintain}, whichever its format: the library entry point
 * of that format ({@link Resurfacer} for Iceberg, {@link DeltaResurfacer} for Delta) behind one shape.
 * This is the only place {@code maintain} tells the formats apart: by the catalog's configured type.
 *
 * @param format the name engines declare capabilities under: {@code iceberg} or {@code delta}
 */
record CatalogRun(String format, Supplier<List<String>> tableLister, Predicate<Operation> supported, Runner runner, AutoCloseable closer) {
  /** Runs a plan with the execution engines its entries may name. */
  interface Runner {
    RunReport run(MaintenancePlan plan, Mode mode, List<ExecutionEngine> engines);
  }

  /** @param progress told of Iceberg catalogs' tables and operations as they finish */
  static CatalogRun connect(CatalogConfig config, int parallel, StorageFences fences, Path workingDir, Progress progress) {
    if (config.isDelta()) {
      DeltaResurfacer d = DeltaResurfacer.connect(config, workingDir).storageFences(fences).parallel(parallel);
      return new CatalogRun("delta", d::tables, d::supports, (plan, mode, engines) -> d.executionEngines(engines).run(plan, mode), d);
    }
    Resurfacer r = Resurfacer.connect(config).parallel(parallel).orphanFences(fences).progress(progress);
    return new CatalogRun("iceberg", r::tables, r::supports, (plan, mode, engines) -> r.executionEngines(engines).run(plan, mode), r);
  }

  /**
   * One configured catalog as {@code serve} watches it, whichever its format: the scheduler sees only
   * {@link dev.resurfacer.serve.ServedCatalog} over the format's engine.
   */
  static dev.resurfacer.serve.ServedCatalog<?> served(CatalogConfig config, StorageFences fences, java.time.Duration lease, Path workingDir) {
    if (config.isDelta()) {
      return DeltaResurfacer.connect(config, workingDir).storageFences(fences).leaseDuration(lease).served();
    }
    return Resurfacer.connect(config).orphanFences(fences).leaseDuration(lease).served();
  }

  List<String> tables() {
    return tableLister.get();
  }

  boolean supports(Operation operation) {
    return supported.test(operation);
  }

  RunReport run(MaintenancePlan plan, Mode mode, List<ExecutionEngine> engines) {
    return runner.run(plan, mode, engines);
  }

  void close() {
    try {
      closer.close();
    } catch (Exception ignored) {
      // the run's report is complete; a failing close changes nothing in it
    }
  }
}
