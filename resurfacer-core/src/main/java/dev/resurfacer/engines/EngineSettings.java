package dev.resurfacer.engines;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.Secrets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code engines.<name>:} section of {@code resurfacer.yml}, flattened ({@code conf:} of a map
 * becomes {@code conf.<key>}) with secret references resolved. Values may hold secrets: print only
 * {@link #redacted()}, and pass any text that may echo a value (an engine's error) through {@link #scrub}.
 *
 * @param secretKeys keys whose value came from a secret reference
 */
public record EngineSettings(String name, Map<String, String> values, Set<String> secretKeys) {
  public EngineSettings {
    values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    secretKeys = Set.copyOf(secretKeys);
  }

  /** No section in the file: the engine's own defaults. */
  public static EngineSettings none(String name) {
    return new EngineSettings(name, Map.of(), Set.of());
  }

  public String get(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  public String require(String key) {
    String v = values.get(key);
    if (v == null || v.isBlank()) {
      throw new UsageException(
          "engines." + name + "." + key + " is required in resurfacer.yml for --engine " + name);
    }
    return v;
  }

  /** Entries under {@code prefix.} with the prefix removed, e.g. {@code conf} gives the Spark conf. */
  public Map<String, String> under(String prefix) {
    Map<String, String> out = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith(prefix + ".")) {
        out.put(k.substring(prefix.length() + 1), v);
      }
    });
    return out;
  }

  /** A key neither in {@code allowed} nor under one of {@code allowedPrefixes} is a typo: one line naming it. */
  public void rejectUnknown(Set<String> allowed, Set<String> allowedPrefixes) {
    for (String k : values.keySet()) {
      boolean ok =
          allowed.contains(k) || allowedPrefixes.stream().anyMatch(p -> k.startsWith(p + "."));
      if (!ok) {
        Set<String> known = new TreeSet<>(allowed);
        allowedPrefixes.forEach(p -> known.add(p + ".*"));
        throw new UsageException("unknown key 'engines." + name + "." + k + "' (expected one of "
            + String.join(", ", known) + ")");
      }
    }
  }

  /** A value that came from a secret reference, or whose key names a credential (e.g. {@code conf.spark.hadoop.fs.s3a.secret.key}). */
  public boolean isSecret(String key) {
    return secretKeys.contains(key) || Secrets.looksSecret(key);
  }

  /** The values with every secret replaced, for messages and reports. */
  public Map<String, String> redacted() {
    Map<String, String> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, isSecret(k) ? "****" : v));
    return out;
  }

  /** {@code text} with every secret value in it, and anything {@link Secrets#redactText} finds, replaced by {@code ****}. */
  public String scrub(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (isSecret(e.getKey()) && !e.getValue().isEmpty()) {
        out = out.replace(e.getValue(), "****");
      }
    }
    return Secrets.redactText(out);
  }

  @Override
  public String toString() {
    return "EngineSettings[" + name + ", " + redacted() + "]";
  }
}
