package dev.resurfacer.config;

import dev.resurfacer.UsageException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parsed {@code resurfacer.yml}: named catalogs and which one is the default.
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
 * default-catalog: lake
 * </pre>
 */
public record ResurfacerConfig(Map<String, CatalogConfig> catalogs, String defaultCatalog) {
  public ResurfacerConfig {
    catalogs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(catalogs));
  }

  public static ResurfacerConfig empty() {
    return new ResurfacerConfig(Map.of(), null);
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
