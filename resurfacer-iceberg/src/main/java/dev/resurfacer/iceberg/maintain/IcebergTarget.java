package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.dispatch.Target;
import dev.resurfacer.formats.Format;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.PlannedCompaction;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireReadout;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.orphans.Inventory;
import dev.resurfacer.iceberg.orphans.OrphanReadout;
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

  /** {@code expire} and {@code remove-orphans}, planned and previewed or done as {@code mode} says. */
  @Override
  public dev.resurfacer.report.Readout act(
      dev.resurfacer.maintain.Operation operation,
      dev.resurfacer.maintain.Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show,
      java.util.function.Consumer<String> warnings) {
    if (operation instanceof dev.resurfacer.maintain.ExpireSnapshots expire) {
      IcebergTable t = open();
      // every configured catalog's tables, of both formats: a file shared with one of them is not
      // this expiry's to delete
      SnapshotExpiry.Plan plan =
          SnapshotExpiry.plan(name(), t.table(), ExpireOptions.of(expire), t.otherTables(null));
      return new ExpireReadout(
          mode == dev.resurfacer.maintain.Mode.COMMIT
              ? SnapshotExpiry.execute(plan, progress)
              : plan.preview());
    }
    if (operation instanceof dev.resurfacer.maintain.RemoveOrphans orphans) {
      IcebergTable t = open();
      OrphanRemoval removal = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
          .olderThan(orphans.olderThan())
          .show(show)
          .quarantine(orphans.quarantine())
          .quarantineRetention(orphans.quarantineRetention())
          .onWarning(warnings)
          .progress(progress)
          .fences(t.fences());
      if (orphans.listing() != null) {
        removal = removal.listing(Inventory.open(orphans.listing(), t.table().io()));
      }
      return new OrphanReadout(
          mode == dev.resurfacer.maintain.Mode.COMMIT ? removal.execute() : removal.plan());
    }
    return Target.super.act(operation, mode, progress, show, warnings);
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
