package dev.resurfacer.trino;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.engines.EngineDeclarations;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
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
  public static final String NAME = EngineDeclarations.TRINO;
  static final Set<String> SETTINGS =
      Set.of("url", "catalog", "delta-catalog", "user", "password", "access-token");

  private final TrinoConnection connection;
  private final Map<String, String> catalogs;
  private final String deltaCatalog;

  /** The provider ServiceLoader instantiates; {@link #open} makes the connected engine. */
  public TrinoEngine() {
    this(null, Map.of(), "delta");
  }

  private TrinoEngine(
      TrinoConnection connection, Map<String, String> catalogs, String deltaCatalog) {
    this.connection = connection;
    this.catalogs = Map.copyOf(catalogs);
    this.deltaCatalog = deltaCatalog;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Checks the settings, reaches the server and checks that the catalog exists: bad input fails here, before any table is opened. */
  @Override
  public ExecutionEngine open(EngineSettings settings) {
    settings.rejectUnknown(SETTINGS, Set.of("catalogs"));
    for (String secret : List.of("password", "access-token")) {
      if (settings.values().containsKey(secret) && !settings.secretKeys().contains(secret)) {
        throw new UsageException("engines." + NAME + "." + secret
            + " must be a secret reference (${env:NAME} or ${file:PATH}), not inline");
      }
    }
    TrinoConnection c = new TrinoConnection(
        settings.require("url"),
        settings.get("catalog", "iceberg"),
        settings.get("user", "resurfacer"),
        settings.values().get("password"),
        settings.values().get("access-token"));
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
      return (List<OperationExecutor<?, T>>)
          (List<?>) IcebergOnTrino.executors(connection, catalogs, null);
    }
    if ("delta".equals(format) && handleType == DeltaTable.class) {
      return (List<OperationExecutor<?, T>>)
          (List<?>) DeltaOnTrino.executors(connection.withCatalog(deltaCatalog));
    }
    return List.of();
  }
}
