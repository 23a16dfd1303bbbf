package dev.resurfacer.delta.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.dispatch.Target;
import dev.resurfacer.formats.Format;
import java.util.Optional;

/** A Delta table a command names (found, not yet read), fenced by every configured catalog's tables read afresh. */
public record DeltaTarget(DeltaTable table) implements Target<DeltaTable> {
  /** The Delta table {@code lookup} names: a name a delta catalog maps, or a location holding a {@code _delta_log}. */
  public static Optional<DeltaTarget> find(TableLookup lookup) {
    return DeltaTables.find(lookup.target(), lookup.config(), lookup.workingDir())
        .map(t -> new DeltaTarget(
            t.withFences(lookup.fences().apply(chosenOrNull(lookup)).rereadEachRun())));
  }

  // an Iceberg table may sit inside a Delta table: the chosen catalog is fenced too when there is
  // one
  private static CatalogConfig chosenOrNull(TableLookup lookup) {
    try {
      return lookup.chosenCatalog().get();
    } catch (UsageException noCatalogChosen) {
      return null;
    }
  }

  @Override
  public Format format() {
    return Format.DELTA;
  }

  @Override
  public String name() {
    return table.name();
  }

  @Override
  public Class<DeltaTable> handleType() {
    return DeltaTable.class;
  }

  @Override
  public DeltaTable open() {
    return table;
  }

  @Override
  public java.util.List<dev.resurfacer.maintain.OperationExecutor<?, DeltaTable>>
      builtInExecutors() {
    return DeltaExecutors.all(java.time.Clock.systemUTC());
  }

  @Override
  public dev.resurfacer.report.Readout describe() {
    return dev.resurfacer.delta.describe.DeltaDescriber.describe(
        table, java.time.Clock.systemUTC());
  }

  @Override
  public dev.resurfacer.layout.Advice advise(
      String name, dev.resurfacer.layout.ScanReports.Loaded reports, double minGain) {
    return dev.resurfacer.delta.compact.DeltaLayouts.advise(name, table, reports, minGain);
  }

  @Override
  public dev.resurfacer.report.Readout planCompaction(
      dev.resurfacer.maintain.CompactionSettings settings) {
    return DeltaCompactor.plan(table, options(settings)).preview();
  }

  @Override
  public dev.resurfacer.report.Readout compact(
      dev.resurfacer.maintain.CompactionSettings settings,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      java.util.function.Consumer<String> groupLines) {
    DeltaCompactor.Plan plan = DeltaCompactor.plan(table, options(settings));
    // a Delta bin is its own commit: the progress display says what group lines would
    return mode == dev.resurfacer.maintain.Mode.PREVIEW
        ? plan.preview()
        : DeltaCompactor.execute(plan, java.time.Clock.systemUTC(), progress);
  }

  @Override
  public dev.resurfacer.report.Readout act(
      dev.resurfacer.maintain.Operation operation,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show,
      java.util.function.Consumer<String> warnings) {
    java.time.Clock clock = java.time.Clock.systemUTC();
    if (operation instanceof dev.resurfacer.maintain.Vacuum vacuum) {
      return dev.resurfacer.delta.vacuum.VacuumReadout.run(
          table, vacuum, mode, progress, show, clock);
    }
    if (operation instanceof dev.resurfacer.maintain.Checkpoint) {
      return dev.resurfacer.delta.log.CheckpointReadout.run(table, mode, clock);
    }
    if (operation instanceof dev.resurfacer.maintain.CleanupLog cleanup) {
      return dev.resurfacer.delta.log.CleanupLogReadout.run(
          table, cleanup.retention(), mode, clock);
    }
    return Target.super.act(operation, mode, progress, show, warnings);
  }

  private CompactionOptions options(dev.resurfacer.maintain.CompactionSettings settings) {
    return CompactionOptions.of(settings, () -> table.latest());
  }

  @Override
  public void close() {
    table.close();
  }
}
