package dev.resurfacer.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How to reach one catalog. {@code properties} holds every catalog property after secret references
 * were resolved; {@link #toString()} and {@link #redactedProperties()} never show secret values.
 *
 * @param name the catalog's name (used in table identifiers and reports)
 * @param type {@code jdbc}, {@code rest}, {@code hadoop} (Iceberg) or {@code delta}
 * @param uri a {@code jdbc:} URL or an {@code http(s)://} REST endpoint; null for hadoop catalogs
 * @param warehouse the warehouse location (local path, {@code file:} or {@code s3://} URI)
 * @param properties further Iceberg catalog properties, secrets already resolved
 * @param secretKeys the property keys whose values came from a secret reference
 * @param tables for a {@code delta} catalog, each {@code namespace.table} name and its location; empty otherwise
 * @param discover for a {@code delta} catalog, the roots under which every Delta table is found when the
 *     catalog's tables are listed ({@code dev.resurfacer.delta.table.DeltaDiscovery}); empty otherwise
 */
public record CatalogConfig(
    String name,
    String type,
    String uri,
    String warehouse,
    Map<String, String> properties,
    Set<String> secretKeys,
    Map<String, String> tables,
    java.util.List<String> discover) {

  public static final Set<String> TYPES = Set.of("jdbc", "rest", "hadoop", "delta");
  public static final String DELTA = "delta";

  public CatalogConfig {
    properties = Map.copyOf(properties);
    secretKeys = Set.copyOf(secretKeys);
    tables = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tables));
    discover = java.util.List.copyOf(discover);
  }

  public CatalogConfig(
      String name,
      String type,
      String uri,
      String warehouse,
      Map<String, String> properties,
      Set<String> secretKeys,
      Map<String, String> tables) {
    this(name, type, uri, warehouse, properties, secretKeys, tables, java.util.List.of());
  }

  public CatalogConfig(
      String name,
      String type,
      String uri,
      String warehouse,
      Map<String, String> properties,
      Set<String> secretKeys) {
    this(name, type, uri, warehouse, properties, secretKeys, Map.of());
  }

  /** A Delta catalog: no catalog service, only names mapped to table locations. */
  public boolean isDelta() {
    return DELTA.equals(type);
  }

  public static CatalogConfig of(String name, String type, String uri, String warehouse) {
    return new CatalogConfig(name, type, uri, warehouse, Map.of(), Set.of());
  }

  /** What {@code --warehouse} does to every catalog of a run: Iceberg catalogs take it; Delta catalogs have no warehouse and keep what they are. */
  public CatalogConfig withWarehouseFlag(String newWarehouse) {
    return isDelta() ? this : withWarehouse(newWarehouse);
  }

  public CatalogConfig withWarehouse(String newWarehouse) {
    return new CatalogConfig(
        name, type, uri, newWarehouse, properties, secretKeys, tables, discover);
  }

  /** Properties with every secret or credential-looking value replaced by {@code ****}. */
  public Map<String, String> redactedProperties() {
    Map<String, String> out = new TreeMap<>();
    properties.forEach((k, v) -> out.put(k, isSecret(k) ? "****" : v));
    return out;
  }

  boolean isSecret(String key) {
    return secretKeys.contains(key) || Secrets.looksSecret(key);
  }

  /** The URI with any {@code user:password@} or {@code password=} part removed. */
  public String redactedUri() {
    return uri == null ? null : Secrets.redactUri(uri);
  }

  @Override
  public String toString() {
    return "CatalogConfig[name=" + name + ", type=" + type + ", uri=" + redactedUri()
        + ", warehouse=" + warehouse
        + ", properties=" + redactedProperties() + (tables.isEmpty() ? "" : ", tables=" + tables)
        + (discover.isEmpty() ? "" : ", discover=" + discover) + "]";
  }
}
