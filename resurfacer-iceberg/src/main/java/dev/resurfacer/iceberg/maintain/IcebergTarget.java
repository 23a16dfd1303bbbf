package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.dispatch.Target;
import dev.resurfacer.formats.Format;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.PlannedCompaction;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.RestoreReadout;
import org.apache.iceberg.catalog.Catalog;

/** An Iceberg table a command names: opened in the chosen catalog on first {@link #open()}, fenced like a local run. */
final class IcebergTarget implements Target<IcebergTable> {
  private final TableLookup lookup;
  private Catalog catalog;
  private IcebergTable table;

  IcebergTarget(TableLookup lookup) {
    this.lookup = lookup;
  }

  @Override
  public Format format() {
    return Format.ICEBERG;
  }

  @Override
  public String name() {
    return lookup.target();
  }

  @Override
  public Class<IcebergTable> handleType() {
    return IcebergTable.class;
  }

  @Override
  public IcebergTable open() {
    if (table == null) {
      CatalogConfig config = lookup.chosenCatalog().get();
      String name = lookup.target();
      Catalogs.parseIdentifier(name);
      catalog = Catalogs.open(config);
      // the same fences a local run applies: every configured catalog's tables, the catalog's own
      // files
      table = new IcebergTable(
          catalog,
          Catalogs.parseIdentifier(name),
          Catalogs.loadTable(catalog, name),
          name,
          lookup.fences().apply(config));
    }
    return table;
  }

  @Override
  public java.util.List<dev.resurfacer.maintain.OperationExecutor<?, IcebergTable>>
      builtInExecutors() {
    return IcebergFormat.builtInExecutors(open().fences(), dev.resurfacer.progress.Progress.NONE);
  }

  @Override
  public dev.resurfacer.report.Readout describe() {
    return dev.resurfacer.iceberg.health.HealthInspector.inspect(
        lookup.target(), open().table());
  }

  @Override
  public dev.resurfacer.layout.Advice advise(
      String name, dev.resurfacer.layout.ScanReports.Loaded reports, double minGain) {
    return dev.resurfacer.iceberg.layout.IcebergLayouts.advise(
        name, open().table(), reports, minGain);
  }

  @Override
  public dev.resurfacer.report.Readout planCompaction(
      dev.resurfacer.maintain.CompactionSettings settings) {
    return Compaction.plan(open().table(), CompactionOptions.of(settings)).readout();
  }

  @Override
  public dev.resurfacer.report.Readout compact(
      dev.resurfacer.maintain.CompactionSettings settings,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      java.util.function.Consumer<String> groupLines) {
    PlannedCompaction plan = Compaction.plan(open().table(), CompactionOptions.of(settings));
    if (mode == dev.resurfacer.maintain.Mode.PREVIEW) {
      return Compaction.preview(plan);
    }
    return Compaction.execute(plan, progress, groupLines);
  }

  /** The verbs the local engine runs on Iceberg tables one at a time, each by its own handler ({@link LocalVerbs}). */
  @Override
  public dev.resurfacer.report.Readout act(
      dev.resurfacer.maintain.Operation operation,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show,
      java.util.function.Consumer<String> warnings) {
    return LocalVerbs.of(operation)
        .map(
            verb -> verb.act(operation, new LocalVerbs.Run(open(), mode, progress, show, warnings)))
        .orElseGet(() -> Target.super.act(operation, mode, progress, show, warnings));
  }

  @Override
  public dev.resurfacer.report.Readout restoreOrphans(
      String runId, dev.resurfacer.maintain.Mode mode) {
    return new RestoreReadout(OrphanRemoval.restore(
        open().table(), name(), runId, mode == dev.resurfacer.maintain.Mode.COMMIT));
  }

  @Override
  public void close() {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception ignored) {
        // the step's outcome is already decided; a failing close changes nothing in it
      }
    }
  }
}
