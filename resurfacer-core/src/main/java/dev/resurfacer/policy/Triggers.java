package dev.resurfacer.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * When {@code serve} maintains a table: the {@code triggers:} section of its effective policy. Any
 * condition that is set and reached fires; null means the condition is not set.
 *
 * <pre>
 * defaults:
 *   triggers: {small-files: 50, snapshots: 200, since-last-run: 1d}
 * tables:
 *   raw.events:
 *     triggers: {commits: 100, operations: [compact, expire]}
 * </pre>
 *
 * @param commits snapshots committed since the last run
 * @param smallFiles live data files below the small-file threshold
 * @param deletedRowRatio rows named by delete files over data rows
 * @param metadataFiles metadata.json files the table keeps
 * @param operations the operations a fired trigger runs; empty means every operation the policy enables
 */
public record Triggers(
    boolean enabled,
    Long commits,
    Long smallFiles,
    Long deleteFiles,
    Double deletedRowRatio,
    Long snapshots,
    Duration oldestSnapshotAge,
    Long metadataFiles,
    Duration sinceLastRun,
    List<String> operations) {

  /** The operation names a trigger may name, as reports spell them: Iceberg's and Delta's (each table runs its own format's). */
  public static final Set<String> OPERATIONS = Set.of(
      "compact",
      "remove-dangling-deletes",
      "rewrite-manifests",
      "expire",
      "remove-orphans",
      "vacuum",
      "checkpoint",
      "cleanup-log");

  /** What a layout condition is cured by: rewriting data and metadata files, which a streaming table needs every few minutes. */
  private static final Set<String> LAYOUT = Set.of(
      "compact",
      "condense",
      "remove-dangling-deletes",
      "convert-equality-deletes",
      "rewrite-position-deletes",
      "rewrite-manifests",
      "checkpoint");
  /** What a history condition is cured by. */
  private static final Set<String> HISTORY = Set.of("expire", "cleanup-log", "checkpoint");

  public static final Triggers NONE =
      new Triggers(true, null, null, null, null, null, null, null, null, List.of());

  public Triggers {
    operations = List.copyOf(operations);
  }

  /** Whether any condition is set (and the section is not switched off). */
  public boolean any() {
    return enabled
        && (commits != null
            || smallFiles != null
            || deleteFiles != null
            || deletedRowRatio != null
            || snapshots != null
            || oldestSnapshotAge != null
            || metadataFiles != null
            || sinceLastRun != null);
  }

  /**
   * The operations a run fired by {@code conditions} (condition names, e.g. {@code small-files}) runs,
   * out of {@code enabled} (the operations the policy enables, in run order), when {@link #operations}
   * is not set: small files and deletes run the layout operations only, so a streaming table's
   * compaction commits without waiting for expiry or an orphan listing; snapshot and metadata counts
   * run expiry; {@code commits} and {@code since-last-run} (and any condition not listed here) run them all.
   */
  public List<String> operationsFor(java.util.Collection<String> conditions, List<String> enabled) {
    if (!operations.isEmpty()) {
      return operations;
    }
    Set<String> wanted = new java.util.HashSet<>();
    for (String c : conditions) {
      switch (c) {
        case "small-files", "delete-files", "deleted-row-ratio" -> wanted.addAll(LAYOUT);
        case "snapshots", "oldest-snapshot-age", "metadata-files" -> wanted.addAll(HISTORY);
        default -> {
          return enabled;
        }
      }
    }
    List<String> out = enabled.stream().filter(wanted::contains).toList();
    return out.isEmpty() ? enabled : out;
  }

  static Triggers from(Map<String, Object> m) {
    Object ratio = m.get("deleted-row-ratio");
    @SuppressWarnings("unchecked")
    List<String> ops = (List<String>) m.getOrDefault("operations", List.of());
    return new Triggers(
        !Boolean.FALSE.equals(m.get("enabled")),
        (Long) m.get("commits"),
        (Long) m.get("small-files"),
        (Long) m.get("delete-files"),
        ratio == null ? null : Double.parseDouble((String) ratio),
        (Long) m.get("snapshots"),
        (Duration) m.get("oldest-snapshot-age"),
        (Long) m.get("metadata-files"),
        (Duration) m.get("since-last-run"),
        ops);
  }

  static List<String> parseOperations(PolicyLayer.Check check, JsonNode v, String path) {
    List<String> raw = new ArrayList<>();
    if (v != null && v.isArray()) {
      v.forEach(o -> raw.add(check.scalar(o, path).trim()));
    } else {
      for (String o : check.scalar(v, path).split(",")) {
        raw.add(o.trim());
      }
    }
    Set<String> out = new LinkedHashSet<>();
    for (String o : raw) {
      if (!OPERATIONS.contains(o)) {
        throw check.fail(path + ": '" + o + "' is not one of "
            + String.join(", ", new java.util.TreeSet<>(OPERATIONS)));
      }
      out.add(o);
    }
    if (out.isEmpty()) {
      throw check.fail(path + " must name at least one operation, e.g. [compact]");
    }
    return List.copyOf(out);
  }
}
