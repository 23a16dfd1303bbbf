package dev.resurfacer.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.policy.Policies;
import dev.resurfacer.policy.PolicyParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code resurfacer.yml} (catalogs, and the maintenance policy in {@code defaults:} and
 * {@code tables:}) strictly: an unknown key, a wrong type or a missing value is a
 * {@link UsageException} naming the file and the key's path, so a typo never silently changes what
 * runs.
 */
public final class ConfigFile {
  private static final Set<String> TOP_LEVEL =
      Set.of("catalogs", "default-catalog", "defaults", "tables", "engines", "serve");
  private static final Set<String> CATALOG_KEYS = Set.of("type", "uri", "warehouse", "properties");
  private static final Set<String> DELTA_CATALOG_KEYS =
      Set.of("type", "tables", "discover", "properties");
  private static final java.util.regex.Pattern TABLE_NAME =
      java.util.regex.Pattern.compile("[^.\\s*?\\[\\]]+(\\.[^.\\s*?\\[\\]]+)+");

  private ConfigFile() {}

  public static ResurfacerConfig load(Path file, Secrets secrets) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new UsageException("cannot read configuration file " + file);
    }
    return parse(text, file.toString(), secrets);
  }

  public static ResurfacerConfig parse(String yaml, String source, Secrets secrets) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
      throw new UsageException(source + ": malformed YAML" + where + ": " + e.getOriginalMessage());
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return ResurfacerConfig.empty();
    }
    requireObject(root, source, "(top level)");
    rejectUnknown(root, TOP_LEVEL, source, "");
    Map<String, CatalogConfig> catalogs = new LinkedHashMap<>();
    JsonNode cats = root.get("catalogs");
    if (cats != null) {
      requireObject(cats, source, "catalogs");
      for (Iterator<Map.Entry<String, JsonNode>> it = cats.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        catalogs.put(e.getKey(), catalog(e.getKey(), e.getValue(), source, secrets));
      }
    }
    String defaultCatalog = text(root, "default-catalog", source, "default-catalog");
    if (defaultCatalog != null && !catalogs.containsKey(defaultCatalog)) {
      throw new UsageException(
          source + ": default-catalog '" + defaultCatalog + "' is not one of catalogs");
    }
    if (defaultCatalog != null && catalogs.get(defaultCatalog).isDelta()) {
      throw new UsageException(
          source + ": default-catalog '" + defaultCatalog
              + "' is a delta catalog; the default names an Iceberg catalog (Delta tables are found by name in every delta catalog)");
    }
    var iceberg = catalogs.values().stream().filter(c -> !c.isDelta()).toList();
    if (defaultCatalog == null && iceberg.size() == 1) {
      defaultCatalog = iceberg.get(0).name();
    }
    rejectDuplicateDeltaNames(catalogs, source);
    Policies policies = PolicyParser.parse(root.get("defaults"), root.get("tables"), source);
    return new ResurfacerConfig(
        catalogs,
        defaultCatalog,
        policies,
        engines(root.get("engines"), source, secrets),
        dev.resurfacer.serve.ServeSettings.parse(root.get("serve"), source));
  }

  /**
   * {@code engines:}: per engine name a mapping of settings; one nested level (such as Spark's
   * {@code conf:}) is flattened to {@code conf.<key>}. Each engine checks its own keys when it opens.
   */
  private static Map<String, EngineSettings> engines(
      JsonNode node, String source, Secrets secrets) {
    Map<String, EngineSettings> out = new LinkedHashMap<>();
    if (node == null || node.isNull()) {
      return out;
    }
    requireObject(node, source, "engines");
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = "engines." + e.getKey();
      requireObject(e.getValue(), source, path);
      Map<String, String> values = new LinkedHashMap<>();
      Set<String> secretKeys = new HashSet<>();
      for (Iterator<Map.Entry<String, JsonNode>> f = e.getValue().fields(); f.hasNext(); ) {
        Map.Entry<String, JsonNode> kv = f.next();
        if (kv.getValue().isObject()) {
          for (Iterator<Map.Entry<String, JsonNode>> g = kv.getValue().fields(); g.hasNext(); ) {
            Map.Entry<String, JsonNode> inner = g.next();
            engineValue(
                kv.getKey() + "." + inner.getKey(),
                inner.getValue(),
                source,
                path,
                secrets,
                values,
                secretKeys);
          }
        } else {
          engineValue(kv.getKey(), kv.getValue(), source, path, secrets, values, secretKeys);
        }
      }
      out.put(e.getKey(), new EngineSettings(e.getKey(), values, secretKeys));
    }
    return out;
  }

  private static void engineValue(
      String key,
      JsonNode v,
      String source,
      String path,
      Secrets secrets,
      Map<String, String> values,
      Set<String> secretKeys) {
    String keyPath = path + "." + key;
    if (!v.isValueNode() || v.isNull()) {
      throw new UsageException(source + ": " + keyPath + " must be a single value");
    }
    String raw = v.asText();
    if (Secrets.hasReference(raw)) {
      secretKeys.add(key);
    }
    values.put(key, secrets.resolve(raw, keyPath));
  }

  private static CatalogConfig catalog(String name, JsonNode node, String source, Secrets secrets) {
    String path = "catalogs." + name;
    requireObject(node, source, path);
    String type = text(node, "type", source, path + ".type");
    if (type == null) {
      throw new UsageException(
          source + ": " + path + ".type is required (one of jdbc, rest, hadoop, delta)");
    }
    if (!CatalogConfig.TYPES.contains(type)) {
      throw new UsageException(
          source + ": " + path + ".type '" + type + "' is not one of jdbc, rest, hadoop, delta");
    }
    rejectUnknown(
        node,
        type.equals(CatalogConfig.DELTA) ? DELTA_CATALOG_KEYS : CATALOG_KEYS,
        source,
        path + ".");
    List<String> discover = type.equals(CatalogConfig.DELTA)
        ? discoverRoots(node.get("discover"), source, path)
        : List.of();
    Map<String, String> tables = type.equals(CatalogConfig.DELTA)
        ? deltaTables(node.get("tables"), !discover.isEmpty(), source, path)
        : Map.of();
    String uri = secrets.resolve(text(node, "uri", source, path + ".uri"), path + ".uri");
    String warehouse = text(node, "warehouse", source, path + ".warehouse");
    if (!type.equals("hadoop") && !type.equals(CatalogConfig.DELTA) && uri == null) {
      throw new UsageException(
          source + ": " + path + ".uri is required for a " + type + " catalog");
    }
    if (type.equals("hadoop") && warehouse == null) {
      throw new UsageException(
          source + ": " + path + ".warehouse is required for a hadoop catalog");
    }
    Map<String, String> props = new LinkedHashMap<>();
    Set<String> secretKeys = new HashSet<>();
    JsonNode p = node.get("properties");
    if (p != null) {
      requireObject(p, source, path + ".properties");
      for (Iterator<Map.Entry<String, JsonNode>> it = p.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String key = path + ".properties." + e.getKey();
        if (!e.getValue().isValueNode() || e.getValue().isNull()) {
          throw new UsageException(source + ": " + key + " must be a single value");
        }
        String raw = e.getValue().asText();
        if (Secrets.hasReference(raw)) {
          secretKeys.add(e.getKey());
        }
        props.put(e.getKey(), secrets.resolve(raw, key));
      }
    }
    return new CatalogConfig(name, type, uri, warehouse, props, secretKeys, tables, discover);
  }

  /** A delta catalog's {@code tables:} mapping: every key a {@code namespace.table} name, every value a location. */
  private static Map<String, String> deltaTables(
      JsonNode node, boolean discovers, String source, String path) {
    if ((node == null || node.isNull()) && discovers) {
      return Map.of();
    }
    if (node == null || node.isNull()) {
      throw new UsageException(
          source + ": " + path + ".tables or " + path
              + ".discover is required for a delta catalog (namespace.table: location, or roots to find tables under)");
    }
    requireObject(node, source, path + ".tables");
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = path + ".tables." + e.getKey();
      if (!TABLE_NAME.matcher(e.getKey()).matches()) {
        throw new UsageException(
            source + ": " + key + ": a table name is namespace.table (no globs, no spaces)");
      }
      if (!e.getValue().isTextual() || e.getValue().asText().isBlank()) {
        throw new UsageException(
            source + ": " + key + " must be the table's location (a path, file: or s3:// URI)");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  /**
   * A delta catalog's {@code discover:} roots: one location or a list. Only listed when the catalog's
   * tables are listed, never here; local and S3 roots in this build.
   */
  private static List<String> discoverRoots(JsonNode node, String source, String path) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    List<JsonNode> items = new java.util.ArrayList<>();
    if (node.isArray()) {
      node.forEach(items::add);
    } else {
      items.add(node);
    }
    List<String> out = new java.util.ArrayList<>();
    for (JsonNode item : items) {
      if (!item.isTextual() || item.asText().isBlank()) {
        throw new UsageException(source + ": " + path
            + ".discover must be a location or a list of locations (a path, file: or s3:// URI)");
      }
      String root = item.asText();
      String lower = root.toLowerCase(java.util.Locale.ROOT);
      if (root.contains("://")
          && !lower.startsWith("file:")
          && !lower.startsWith("s3://")
          && !lower.startsWith("s3a://")
          && !lower.startsWith("s3n://")) {
        throw new UsageException(
            source + ": " + path + ".discover: " + root
                + ": only local roots (a path or file: URI) and s3:// roots are discovered in this build; name other tables under tables:");
      }
      out.add(root);
    }
    if (out.isEmpty()) {
      throw new UsageException(source + ": " + path + ".discover must name at least one root");
    }
    return out;
  }

  private static void rejectDuplicateDeltaNames(
      Map<String, CatalogConfig> catalogs, String source) {
    Map<String, String> owner = new java.util.HashMap<>();
    for (CatalogConfig c : catalogs.values()) {
      for (String t : c.tables().keySet()) {
        String previous = owner.putIfAbsent(t, c.name());
        if (previous != null) {
          throw new UsageException(source + ": table " + t + " is named in both delta catalogs "
              + previous + " and " + c.name());
        }
      }
    }
  }

  private static String text(JsonNode node, String field, String source, String path) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isValueNode()) {
      throw new UsageException(source + ": " + path + " must be a single value, not a "
          + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
    return v.asText();
  }

  private static void requireObject(JsonNode node, String source, String path) {
    if (!node.isObject()) {
      throw new UsageException(source + ": " + path + " must be a mapping of keys to values");
    }
  }

  private static void rejectUnknown(
      JsonNode node, Set<String> known, String source, String prefix) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!known.contains(k)) {
        throw new UsageException(source + ": unknown key '" + prefix + k + "' (expected one of "
            + String.join(", ", new java.util.TreeSet<>(known)) + ")");
      }
    }
  }
}
