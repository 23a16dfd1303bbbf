package dev.resurfacer.trino;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineCapability;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --engine trino}: the verbs run as Trino's own table procedures on a Trino server the user
 * already runs, reached with trino-jdbc. Settings ({@code engines.trino:} in resurfacer.yml):
 * {@code url} ({@code jdbc:trino://host:port}), {@code catalog} (the Trino catalog that exposes the
 * tables, default {@code iceberg}), {@code delta-catalog} (Trino's Delta Lake catalog, default
 * {@code delta}), {@code catalogs.<ours>: <trino catalog>} where one of our
 * catalogs is exposed by another Trino catalog, {@code user}, and {@code password} or
 * {@code access-token} — only as a secret reference, never inline.
 */
public final class TrinoEngine implements ExecutionEngineProvider, ExecutionEngine {
  public static final String NAME = "trino";
  static final Set<String> SETTINGS = Set.of("url", "catalog", "delta-catalog", "user", "password", "access-token");

  private static final List<EngineCapability> CAPABILITIES = List.of(
      EngineCapability.works(NAME, "iceberg", "compact", "ALTER TABLE ... EXECUTE optimize(file_size_threshold) [WHERE partition];"
          + " bin-pack, or sort by the table's declared order only; no z-order; verified after Trino's commit (count + checksum), rolled back on mismatch")
          .refusing("layout", "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      EngineCapability.works(NAME, "iceberg", "rewrite-manifests",
          "EXECUTE optimize_manifests, clustered by whole partition (sort-by refused); rows checked after Trino's commit")
          .refusing("sort-by", "Trino's optimize_manifests takes no clustering fields, it clusters by whole partition"),
      EngineCapability.works(NAME, "iceberg", "expire", "EXECUTE expire_snapshots(retention_threshold); our preview first (same core rule),"
          + " keeps history.expire.min-snapshots-to-keep (no retain-last); floor iceberg.expire-snapshots.min-retention"),
      EngineCapability.works(NAME, "iceberg", "remove-orphans", "EXECUTE remove_orphan_files(retention_threshold), no dry run: runs only when"
          + " every file Trino could delete is an orphan by our fences too; floor iceberg.remove-orphan-files.min-retention"),
      EngineCapability.refused(NAME, "iceberg", "remove-dangling-deletes", "Trino has no procedure for it (optimize applies deletes to the files it rewrites)"),
      EngineCapability.refused(NAME, "iceberg", "rewrite-position-deletes", "Trino has no procedure for it"),
      EngineCapability.refused(NAME, "iceberg", "condense", "Trino cannot rewrite into a non-default partition spec"),
      EngineCapability.refused(NAME, "iceberg", "apply-retention", "table properties, not a Trino procedure: use --engine local"),
      EngineCapability.works(NAME, "delta", "compact", "ALTER TABLE ... EXECUTE optimize(file_size_threshold) on the delta-catalog;"
          + " bin-pack only; preview from the log; verified after Trino's commit (count + checksum), not undone: Trino cannot restore")
          .refusing("layout", "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      EngineCapability.works(NAME, "delta", "vacuum", "CALL system.vacuum(schema, table, retention), no dry run: runs only when every"
          + " file Trino could delete is in our own vacuum's plan; floor delta.vacuum.min-retention; tables with deletion vectors refused")
          .refusing("lite", "Trino's system.vacuum always lists the table; it has no lite mode")
          .refusing("keep-versions", "Trino's system.vacuum has no setting to keep chosen versions"),
      EngineCapability.refused(NAME, "delta", "checkpoint", "Trino has no checkpoint procedure (it checkpoints on its own commits)"),
      EngineCapability.refused(NAME, "delta", "cleanup-log", "Trino has no log cleanup procedure"));

  private final TrinoConnection connection;
  private final Map<String, String> catalogs;
  private final String deltaCatalog;

  /** The provider ServiceLoader instantiates; {@link #open} makes the connected engine. */
  public TrinoEngine() {
    this(null, Map.of(), "delta");
  }

  private TrinoEngine(TrinoConnection connection, Map<String, String> catalogs, String deltaCatalog) {
    this.connection = connection;
    this.catalogs = Map.copyOf(catalogs);
    this.deltaCatalog = deltaCatalog;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<EngineCapability> capabilities() {
    return CAPABILITIES;
  }

  /** Checks the settings, reaches the server and checks that the catalog exists: bad input fails here, before any table is opened. */
  @Override
  public ExecutionEngine open(EngineSettings settings) {
    settings.rejectUnknown(SETTINGS, Set.of("catalogs"));
    for (String secret : List.of("password", "access-token")) {
      if (settings.values().containsKey(secret) && !settings.secretKeys().contains(secret)) {
        throw new UsageException("engines." + NAME + "." + secret + " must be a secret reference (${env:NAME} or ${file:PATH}), not inline");
      }
    }
    TrinoConnection c = new TrinoConnection(settings.require("url"), settings.get("catalog", "iceberg"), settings.get("user", "resurfacer"),
        settings.values().get("password"), settings.values().get("access-token"));
    String deltaCatalog = settings.get("delta-catalog", "delta");
    c.withCatalog(deltaCatalog);
    Map<String, String> mapped = settings.under("catalogs");
    new TrinoStatements(c).requireCatalog();
    for (String trinoCatalog : new java.util.TreeSet<>(mapped.values())) {
      new TrinoStatements(c.withCatalog(trinoCatalog)).requireCatalog();
    }
    return new TrinoEngine(c, mapped, deltaCatalog);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType) {
    if (connection == null) {
      throw new IllegalStateException("open the Trino engine before asking for executors");
    }
    if ("iceberg".equals(format) && handleType == IcebergTable.class) {
      return (List<OperationExecutor<?, T>>) (List<?>) IcebergOnTrino.executors(connection, catalogs, null);
    }
    if ("delta".equals(format) && handleType == DeltaTable.class) {
      return (List<OperationExecutor<?, T>>) (List<?>) DeltaOnTrino.executors(connection.withCatalog(deltaCatalog));
    }
    return List.of();
  }
}
