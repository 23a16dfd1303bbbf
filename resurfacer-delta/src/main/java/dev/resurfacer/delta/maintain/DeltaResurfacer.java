package dev.resurfacer.delta.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.table.DeltaDiscovery;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.formats.Format;
import dev.resurfacer.formats.FormatFactory;
import dev.resurfacer.maintain.Resurfacer;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Delta's factory for the generic {@link Resurfacer}: the tables of one {@code type: delta} catalog,
 * with the same plans, runner and reports as Iceberg's.
 *
 * <pre>
 * var plan = MaintenancePlan.of(
 *     Maintain.namespace("raw").vacuum().compact(),
 *     Maintain.table("staging.orders").vacuum(Duration.ofDays(7)).compact(256L &lt;&lt; 20));
 * RunReport report = DeltaResurfacer.connect(config.catalogs().get("deltas")).run(plan, Mode.COMMIT);
 * report.raiseIfErrors();
 * </pre>
 *
 * In {@link dev.resurfacer.maintain.Mode#COMMIT} each table is leased for its run ({@code DeltaLease}),
 * so two runs never maintain one table at once: the second skips it.
 */
public final class DeltaResurfacer implements FormatFactory {
  /** A delta catalog; relative table locations are resolved against the working directory. */
  public static Resurfacer<DeltaTable> connect(CatalogConfig config) {
    return connect(config, Path.of("").toAbsolutePath());
  }

  /** Vacuum respects this catalog's tables; give {@link Resurfacer#fences} over every catalog you use (Iceberg ones included). */
  public static Resurfacer<DeltaTable> connect(CatalogConfig config, Path workingDir) {
    if (Format.of(config) != Format.DELTA) {
      throw new UsageException(
          "catalog '" + config.name() + "' is not a delta catalog (type " + config.type() + ")");
    }
    return Resurfacer.over(new DeltaFormat(
        config.name(),
        () -> DeltaDiscovery.tables(config, workingDir),
        workingDir,
        DeltaTables.settings(config),
        Clock.systemUTC(),
        StorageFences.forCatalogs(List.of(config), null, workingDir)));
  }

  @Override
  public Format format() {
    return Format.DELTA;
  }

  @Override
  public java.util.Optional<dev.resurfacer.dispatch.Target<?>> find(
      dev.resurfacer.dispatch.TableLookup lookup) {
    return DeltaTarget.find(lookup).map(t -> t);
  }

  @Override
  public Resurfacer<?> open(CatalogConfig catalog, Path workingDir) {
    return connect(catalog, workingDir);
  }
}
