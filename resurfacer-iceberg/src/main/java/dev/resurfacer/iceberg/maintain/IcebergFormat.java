package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.TableFormat;
import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.TableStats;
import dev.resurfacer.storage.StorageFences;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/** The Iceberg {@link TableFormat}: one catalog, its tables, their health and leases, and the built-in executors. */
final class IcebergFormat implements TableFormat<IcebergTable> {
  private final Catalog catalog;
  private final Clock clock;
  private final StorageFences fences;
  private final SignalReader signals;
  /** Each manifest counted once for the measurements before and after every run (serve measures a streaming table often). */
  private final dev.resurfacer.iceberg.health.ManifestTallies tallies;

  private final Progress progress;

  IcebergFormat(Catalog catalog, Clock clock, StorageFences fences, Progress progress) {
    this(
        catalog,
        clock,
        fences,
        new SignalReader(),
        new dev.resurfacer.iceberg.health.ManifestTallies(),
        progress);
  }

  private IcebergFormat(
      Catalog catalog,
      Clock clock,
      StorageFences fences,
      SignalReader signals,
      dev.resurfacer.iceberg.health.ManifestTallies tallies,
      Progress progress) {
    this.catalog = catalog;
    this.clock = clock;
    this.fences = fences;
    this.signals = signals;
    this.tallies = tallies;
    this.progress = progress;
  }

  @Override
  public IcebergFormat withFences(StorageFences newFences) {
    return new IcebergFormat(catalog, clock, newFences, signals, tallies, progress);
  }

  @Override
  public IcebergFormat withProgress(Progress newProgress) {
    return new IcebergFormat(catalog, clock, fences, signals, tallies, newProgress);
  }

  @Override
  public Progress progress() {
    return progress;
  }

  @Override
  public dev.resurfacer.formats.Format format() {
    return dev.resurfacer.formats.Format.ICEBERG;
  }

  @Override
  public java.util.Optional<LayoutAdvice<IcebergTable>> layoutAdvice() {
    return java.util.Optional.of((name, t, reports, minGain) ->
        dev.resurfacer.iceberg.layout.IcebergLayouts.advise(name, t.table(), reports, minGain));
  }

  @Override
  public Class<IcebergTable> handleType() {
    return IcebergTable.class;
  }

  @Override
  public String catalogName() {
    return catalog.name();
  }

  @Override
  public List<String> allTables() {
    if (!(catalog instanceof SupportsNamespaces ns)) {
      throw new UsageException(
          "catalog '" + catalog.name() + "' cannot list namespaces; name the tables to maintain");
    }
    List<String> out = new ArrayList<>();
    collect(ns, Namespace.empty(), out);
    return out;
  }

  private void collect(SupportsNamespaces ns, Namespace parent, List<String> out) {
    for (Namespace child : ns.listNamespaces(parent)) {
      for (TableIdentifier id : catalog.listTables(child)) {
        out.add(Catalogs.nameOf(id));
      }
      collect(ns, child, out);
    }
  }

  @Override
  public List<String> tablesIn(String namespace) {
    try {
      return catalog
          .listTables(Namespace.of(
              dev.resurfacer.names.TableName.parseNamespace(namespace).toArray(String[]::new)))
          .stream()
          .map(Catalogs::nameOf)
          .sorted()
          .toList();
    } catch (NoSuchNamespaceException e) {
      throw new UsageException(
          "namespace " + namespace + " does not exist in catalog '" + catalog.name() + "'");
    }
  }

  @Override
  public IcebergTable open(String table) {
    return new IcebergTable(
        catalog,
        Catalogs.parseIdentifier(table),
        Catalogs.loadTable(catalog, table),
        table,
        fences);
  }

  @Override
  public void refresh(IcebergTable table) {
    table.table().refresh();
  }

  @Override
  public TableStats stats(IcebergTable table) {
    TableHealth h = HealthInspector.inspect(table.name(), table.table(), tallies);
    TableHealth.DataFiles data = h.data();
    return new TableStats(
        data.dataFiles(),
        data.dataBytes(),
        data.dataRecords(),
        data.smallDataFiles(),
        h.deletes().deleteFiles(),
        h.deletes().deleteBytes(),
        h.history().snapshots(),
        h.manifests().manifests(),
        h.metadata().metadataBytes(),
        data.sizeHistogram().stream()
            .map(b -> new TableStats.SizeBucket(
                b.label(), b.minBytes(), b.maxBytes(), b.files(), b.bytes()))
            .toList());
  }

  @Override
  public TableSignals signals(IcebergTable table, java.time.Instant since) {
    return signals.read(table.table(), since, 1);
  }

  @Override
  public TableSignals signals(IcebergTable table, java.time.Instant since, int minInputFiles) {
    return signals.read(table.table(), since, minInputFiles);
  }

  @Override
  public AutoCloseable lease(IcebergTable table, String owner, Duration ttl) {
    return TableLease.acquire(table.table(), owner, ttl, clock);
  }

  @Override
  public List<OperationExecutor<?, IcebergTable>> builtInExecutors() {
    return builtInExecutors(fences, progress);
  }

  /** What the local engine runs on an Iceberg table: in a catalog's run and for a single verb alike. */
  static List<OperationExecutor<?, IcebergTable>> builtInExecutors(
      StorageFences fences, Progress progress) {
    List<OperationExecutor<?, IcebergTable>> all =
        new java.util.ArrayList<>(BuiltInExecutors.all(fences, progress));
    all.addAll(LayoutExecutors.all());
    return List.copyOf(all);
  }

  @Override
  public void close() {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception ignored) {
        // the run's report is complete; a failing close changes nothing in it
      }
    }
  }
}
