package dev.resurfacer.config;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.policy.Policies;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parsed {@code resurfacer.yml}: named catalogs, which one is the default, and the maintenance
 * policies ({@code defaults:} and {@code tables:}, see {@link Policies}).
 *
 * <pre>
 * catalogs:
 *   lake:
 *     type: jdbc
 *     uri: jdbc:postgresql://db:5432/iceberg
 *     warehouse: s3://bucket/warehouse
 *     properties:
 *       jdbc.user: iceberg
 *       jdbc.password: ${env:ICEBERG_DB_PASSWORD}
 *   delta:
 *     type: delta
 *     tables:
 *       raw.events: s3://bucket/raw/events
 *       raw.clicks: /data/raw/clicks
 * default-catalog: lake
 * engines:
 *   spark:
 *     remote: sc://spark-connect:15002
 * </pre>
 */
public record ResurfacerConfig(
    Map<String, CatalogConfig> catalogs,
    String defaultCatalog,
    Policies policies,
    Map<String, EngineSettings> engines,
    dev.resurfacer.serve.ServeSettings serve) {
  public ResurfacerConfig {
    catalogs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(catalogs));
    policies = policies == null ? Policies.none() : policies;
    engines = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(engines));
    serve = serve == null ? dev.resurfacer.serve.ServeSettings.DEFAULTS : serve;
  }

  public ResurfacerConfig(
      Map<String, CatalogConfig> catalogs, String defaultCatalog, Policies policies) {
    this(catalogs, defaultCatalog, policies, Map.of(), null);
  }

  /** The {@code engines.<name>:} section, or none: the engine's own defaults. */
  public EngineSettings engine(String name) {
    return engines.getOrDefault(name, EngineSettings.none(name));
  }

  public ResurfacerConfig(Map<String, CatalogConfig> catalogs, String defaultCatalog) {
    this(catalogs, defaultCatalog, Policies.none());
  }

  public static ResurfacerConfig empty() {
    return new ResurfacerConfig(Map.of(), null);
  }

  /**
   * The location of a Delta table named in a {@code type: delta} catalog, if any catalog names it.
   * Names are unique across delta catalogs (checked when the file is read).
   */
  public java.util.Optional<String> deltaLocation(String table) {
    return catalogs.values().stream()
        .filter(CatalogConfig::isDelta)
        .map(c -> c.tables().get(table))
        .filter(java.util.Objects::nonNull)
        .findFirst();
  }

  public CatalogConfig catalog(String name) {
    CatalogConfig c = catalogs.get(name);
    if (c == null) {
      throw new UsageException("no catalog named '" + name + "' in the configuration (known: "
          + (catalogs.isEmpty() ? "none" : String.join(", ", catalogs.keySet())) + ")");
    }
    return c;
  }
}
