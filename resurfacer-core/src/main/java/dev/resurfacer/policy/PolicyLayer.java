package dev.resurfacer.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.CompactionSettings;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One validated policy section ({@code defaults:} or one {@code tables:} entry): operation name to the
 * keys it sets, with typed values. Compaction settings are stored under their Spark option names so
 * a friendly key ({@code target-file-size}) and a raw option ({@code target-file-size-bytes}) override
 * each other.
 */
record PolicyLayer(Map<String, Map<String, Object>> sections) {
  /** A sort-by list or z-order columns: kept apart from the Spark options, which are plain strings. */
  record Order(String text) {}

  /** A list of names: the columns {@code compute-stats} sketches, the partition fields {@code rewrite-manifests} clusters by. */
  record Columns(java.util.List<String> names) {}

  /** Table versions (vacuum's {@code keep-versions}). */
  record Versions(java.util.List<Long> numbers) {}

  static final PolicyLayer EMPTY = new PolicyLayer(Map.of());

  /** {@code engine: spark} — a scalar beside the operation sections, stored as a section of its own. */
  static final String ENGINE = "engine";

  private static final java.util.regex.Pattern ENGINE_NAME =
      java.util.regex.Pattern.compile("[a-z][a-z0-9-]*");

  private static final Map<String, Set<String>> KEYS = Map.ofEntries(
      Map.entry(
          "compact",
          Set.of(
              "enabled",
              "strategy",
              "target-file-size",
              "min-file-size",
              "max-file-size",
              "max-file-group-size",
              "min-input-files",
              "delete-file-threshold",
              "delete-ratio-threshold",
              "rewrite-all",
              "partial-progress",
              "max-commits",
              "commit-every-groups",
              "commit-every",
              "min-partition-idle",
              "max-concurrent",
              "options",
              "sort-by",
              "zorder-columns",
              "layout",
              "layout-min-gain",
              "scan-reports")),
      Map.entry("expire", Set.of("enabled", "older-than", "retain-last")),
      Map.entry(
          "remove-orphans",
          Set.of("enabled", "older-than", "quarantine", "quarantine-retention", "listing")),
      Map.entry("remove-dangling-deletes", Set.of("enabled")),
      Map.entry("rewrite-manifests", Set.of("enabled", "sort-by")),
      Map.entry(
          "triggers",
          Set.of(
              "enabled",
              "commits",
              "small-files",
              "delete-files",
              "deleted-row-ratio",
              "snapshots",
              "oldest-snapshot-age",
              "metadata-files",
              "since-last-run",
              "operations")),
      Map.entry("vacuum", Set.of("enabled", "retention", "lite", "keep-versions")),
      Map.entry("checkpoint", Set.of("enabled")),
      Map.entry("cleanup-log", Set.of("enabled", "retention")),
      Map.entry("apply-retention", Set.of("enabled", "keep", "delete-after-commit")),
      Map.entry("condense", Set.of("enabled", "to", "older-than")),
      Map.entry("rewrite-position-deletes", Set.of("enabled", "options")),
      Map.entry("convert-equality-deletes", Set.of("enabled")),
      Map.entry("compute-stats", Set.of("enabled", "columns")),
      Map.entry("compute-partition-stats", Set.of("enabled")));

  PolicyLayer {
    Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
    sections.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
    sections = Map.copyOf(copy);
  }

  void mergeInto(Map<String, Map<String, Object>> target) {
    sections.forEach(
        (op, values) -> target.computeIfAbsent(op, k -> new LinkedHashMap<>()).putAll(values));
  }

  /** Parses one section; {@code where} is the file name and {@code path} the key path, e.g. {@code tables.raw.*}. */
  static PolicyLayer parse(JsonNode node, String where, String path) {
    Check check = new Check(where);
    check.object(node, path);
    TreeSet<String> known = new TreeSet<>(KEYS.keySet());
    known.add(ENGINE);
    check.known(node, known, path);
    Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String op = e.getKey();
      String opPath = path + "." + op;
      JsonNode section = e.getValue();
      if (op.equals(ENGINE)) {
        String name = check.scalar(section, opPath);
        if (!ENGINE_NAME.matcher(name).matches()) {
          throw check.fail(
              opPath + " '" + name + "' is not an engine name (local, spark, trino, ...)");
        }
        sections.put(ENGINE, Map.of(ENGINE, name));
        continue;
      }
      check.object(section, opPath);
      check.known(section, new TreeSet<>(KEYS.get(op)), opPath);
      Map<String, Object> values = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> f = section.fields(); f.hasNext(); ) {
        Map.Entry<String, JsonNode> kv = f.next();
        parseValue(check, op, kv.getKey(), kv.getValue(), opPath + "." + kv.getKey(), values);
      }
      if (op.equals("compact")) {
        checkCompactSizes(stringOptions(values), where + ": " + opPath + ": ");
      }
      sections.put(op, values);
    }
    return new PolicyLayer(sections);
  }

  private static void parseValue(
      Check check, String op, String key, JsonNode v, String keyPath, Map<String, Object> out) {
    switch (key) {
      case "enabled", "delete-after-commit" -> out.put(key, check.bool(v, keyPath));
      case "keep" -> out.put(key, (int) check.count(v, keyPath));
      case "to" -> {
        String s = check.scalar(v, keyPath);
        if (!dev.resurfacer.maintain.Condense.GRANULARITIES.contains(s)) {
          throw check.fail(keyPath + " '" + s + "' is not one of day, month, year");
        }
        out.put(key, s);
      }
      case "columns" -> out.put(key, new Columns(columnList(check, v, keyPath)));
      case "older-than",
          "quarantine-retention",
          "oldest-snapshot-age",
          "since-last-run",
          "retention" -> out.put(key, check.duration(v, keyPath));
      case "commits", "small-files", "delete-files", "snapshots", "metadata-files" ->
        out.put(key, check.count(v, keyPath));
      case "operations" -> out.put(key, Triggers.parseOperations(check, v, keyPath));
      case "quarantine", "lite" -> out.put(key, check.bool(v, keyPath));
      case "listing" -> out.put(key, check.scalar(v, keyPath));
      case "keep-versions" -> out.put(key, new Versions(versionList(check, v, keyPath)));
      case "retain-last" -> out.put(key, (int) check.count(v, keyPath));
      case "strategy" -> {
        String s = check.scalar(v, keyPath);
        if (!s.equals("binpack") && !s.equals("sort") && !s.equals("zorder")) {
          throw check.fail(keyPath + " '" + s + "' is not one of binpack, sort, zorder");
        }
        out.put(key, s);
      }
      case "sort-by" ->
        out.put(
            key,
            op.equals("rewrite-manifests")
                ? new Columns(names(check, v, keyPath, "partition field names, e.g. [day, bucket]"))
                : new Order(check.scalar(v, keyPath)));
      case "zorder-columns" ->
        out.put(key, new Order(String.join(",", columnList(check, v, keyPath))));
      case "layout" -> {
        String s = check.scalar(v, keyPath);
        if (!s.equals("auto") && !s.equals("fixed")) {
          throw check.fail(keyPath + " '" + s + "' is not one of auto, fixed");
        }
        out.put(dev.resurfacer.maintain.Compact.LAYOUT, s);
      }
      case "layout-min-gain" ->
        out.put(
            dev.resurfacer.maintain.Compact.LAYOUT_MIN_GAIN,
            fraction(check, v, keyPath, "[0, 1)", d -> d >= 0 && d < 1));
      case "scan-reports" ->
        out.put(dev.resurfacer.maintain.Compact.SCAN_REPORTS, check.scalar(v, keyPath));
      case "rewrite-all" -> out.put("rewrite-all", Boolean.toString(check.bool(v, keyPath)));
      case "partial-progress" ->
        out.put("partial-progress.enabled", Boolean.toString(check.bool(v, keyPath)));
      case "min-partition-idle", "commit-every" -> {
        Duration d = check.duration(v, keyPath);
        if (d.isZero()) {
          throw check.fail(keyPath + " must be greater than zero");
        }
        // a compaction option like the others: its text, read again by each format's compaction
        out.put(key, check.scalar(v, keyPath).trim());
      }
      case "delete-ratio-threshold", "deleted-row-ratio" ->
        out.put(key, fraction(check, v, keyPath, "(0, 1]", d -> d > 0 && d <= 1));
      case "options" -> {
        check.object(v, keyPath);
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> o = it.next();
          out.put(o.getKey(), check.scalar(o.getValue(), keyPath + "." + o.getKey()));
        }
      }
      default -> {
        if (CompactionSettings.SIZE_OPTIONS.containsKey(key)) {
          out.put(CompactionSettings.SIZE_OPTIONS.get(key), Long.toString(check.size(v, keyPath)));
        } else if (CompactionSettings.COUNT_OPTIONS.containsKey(key)) {
          out.put(
              CompactionSettings.COUNT_OPTIONS.get(key), Long.toString(check.count(v, keyPath)));
        } else {
          throw new IllegalStateException(op + "." + key);
        }
      }
    }
  }

  /** A number as its text, checked to lie in {@code range} (e.g. "(0, 1]"). */
  private static String fraction(
      Check check,
      JsonNode v,
      String keyPath,
      String range,
      java.util.function.DoublePredicate within) {
    String s = check.scalar(v, keyPath);
    double d;
    try {
      d = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw check.fail(keyPath + " must be a number in " + range + " (got '" + s + "')");
    }
    if (!within.test(d)) {
      throw check.fail(keyPath + " must be a number in " + range + " (got " + s + ")");
    }
    return s;
  }

  /** A YAML list or a comma-separated string of table versions (0 or more). */
  private static java.util.List<Long> versionList(Check check, JsonNode v, String keyPath) {
    java.util.List<Long> out = new java.util.ArrayList<>();
    for (String s : names(check, v, keyPath, "table versions, e.g. [3, 7]")) {
      try {
        long n = Long.parseLong(s);
        if (n >= 0) {
          out.add(n);
          continue;
        }
      } catch (NumberFormatException e) {
        // reported below with the key
      }
      throw check.fail(
          keyPath + " must list table versions (0 or more), e.g. [3, 7] (got '" + s + "')");
    }
    return out;
  }

  /** A YAML list or a comma-separated string of column names, none empty. */
  private static java.util.List<String> columnList(Check check, JsonNode v, String keyPath) {
    return names(check, v, keyPath, "column names, e.g. [user_id, ts]");
  }

  /**
   * A YAML list or a comma-separated string of names, none empty, each quoted as
   * {@link dev.resurfacer.names.Identifiers} describes (a name holding a comma in backticks).
   */
  private static java.util.List<String> names(
      Check check, JsonNode v, String keyPath, String expected) {
    java.util.List<String> cols = new java.util.ArrayList<>();
    try {
      if (v.isArray()) {
        for (JsonNode c : v) {
          java.util.List<String> one =
              dev.resurfacer.names.Identifiers.splitList(check.scalar(c, keyPath), keyPath);
          if (one.size() != 1) {
            throw check.fail(keyPath + ": '" + check.scalar(c, keyPath)
                + "' is more than one name; a name holding a comma goes in" + " backticks");
          }
          cols.add(one.get(0));
        }
      } else {
        cols.addAll(dev.resurfacer.names.Identifiers.splitList(check.scalar(v, keyPath), keyPath));
      }
    } catch (dev.resurfacer.UsageException e) {
      if (e.getMessage().startsWith(check.where() + ": ")) {
        throw e;
      }
      throw check.fail(keyPath + " must list " + expected
          + (e.getMessage().contains("empty item") ? "" : " (" + e.getMessage() + ")"));
    }
    if (cols.isEmpty() || cols.stream().anyMatch(String::isEmpty)) {
      throw check.fail(keyPath + " must list " + expected);
    }
    return cols;
  }

  private static Map<String, String> stringOptions(Map<String, Object> values) {
    Map<String, String> m = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (v instanceof String s) {
        m.put(k, s);
      }
    });
    return m;
  }

  /** A target below the minimum or above the maximum file size is a plan no planner can follow. */
  static void checkCompactSizes(Map<String, String> options, String prefix) {
    Long target = longOption(options, "target-file-size-bytes");
    Long min = longOption(options, "min-file-size-bytes");
    Long max = longOption(options, "max-file-size-bytes");
    if (target != null && min != null && target < min) {
      throw new UsageException(prefix + "target-file-size (" + ByteSizes.format(target)
          + ") is below min-file-size (" + ByteSizes.format(min) + ")");
    }
    if (target != null && max != null && target > max) {
      throw new UsageException(prefix + "target-file-size (" + ByteSizes.format(target)
          + ") is above max-file-size (" + ByteSizes.format(max) + ")");
    }
    if (min != null && max != null && min > max) {
      throw new UsageException(prefix + "min-file-size (" + ByteSizes.format(min)
          + ") is above max-file-size (" + ByteSizes.format(max) + ")");
    }
  }

  private static Long longOption(Map<String, String> options, String key) {
    try {
      return options.containsKey(key) ? Long.parseLong(options.get(key)) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** One-line errors that start with the file name and name the key's path. */
  record Check(String where) {
    UsageException fail(String message) {
      return new UsageException(where + ": " + message);
    }

    void object(JsonNode node, String path) {
      if (node == null || !node.isObject()) {
        throw fail(path + " must be a mapping of keys to values");
      }
    }

    void known(JsonNode node, Set<String> known, String path) {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!known.contains(k)) {
          throw fail("unknown key '" + path + "." + k + "' (expected one of "
              + String.join(", ", known) + ")");
        }
      }
    }

    String scalar(JsonNode v, String path) {
      if (v == null || v.isNull()) {
        throw fail(path + " needs a value");
      }
      if (!v.isValueNode()) {
        throw fail(path + " must be a single value, not a "
            + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
      }
      return v.asText();
    }

    boolean bool(JsonNode v, String path) {
      if (v == null || !v.isBoolean()) {
        throw fail(path + " must be true or false (got " + describe(v) + ")");
      }
      return v.booleanValue();
    }

    long count(JsonNode v, String path) {
      if (v == null || !v.isIntegralNumber()) {
        throw fail(path + " must be a whole number (got " + describe(v) + ")");
      }
      if (v.longValue() < 1) {
        throw fail(path + " must be at least 1 (got " + v.longValue() + ")");
      }
      return v.longValue();
    }

    Duration duration(JsonNode v, String path) {
      String s = scalar(v, path).trim();
      if (s.startsWith("-")) {
        throw fail(path + " must not be negative (got " + s + ")");
      }
      try {
        return Durations.parse(s);
      } catch (UsageException e) {
        throw fail(path + ": " + e.getMessage());
      }
    }

    long size(JsonNode v, String path) {
      String s = scalar(v, path).trim();
      if (s.startsWith("-")) {
        throw fail(path + " must not be negative (got " + s + ")");
      }
      long bytes;
      try {
        bytes = ByteSizes.parse(s);
      } catch (UsageException e) {
        throw fail(path + ": " + e.getMessage());
      }
      if (bytes <= 0) {
        throw fail(path + " must be greater than zero");
      }
      return bytes;
    }

    private static String describe(JsonNode v) {
      if (v == null || v.isNull()) {
        return "nothing";
      }
      return v.isValueNode()
          ? "'" + v.asText() + "'"
          : "a " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
