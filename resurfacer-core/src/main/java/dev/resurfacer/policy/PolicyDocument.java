package dev.resurfacer.policy;

import dev.resurfacer.formats.Format;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A table's effective policy as {@code policy} shows it: the operations of the table's format, in the order
 * {@code maintain} runs them, and its {@code serve} triggers.
 */
public final class PolicyDocument {
  private PolicyDocument() {}

  /**
   * @param triggers the table's effective {@code triggers:} (when {@code serve} runs its policy)
   * @param format the table's: a Delta table's operations are compact, vacuum, checkpoint and cleanup-log instead of Iceberg's
   */
  public static Map<String, Object> json(EffectivePolicy e, Triggers triggers, Format format) {
    boolean delta = format == Format.DELTA;
    TablePolicy p = e.policy();
    Map<String, Object> ops = new LinkedHashMap<>();
    Map<String, Object> compact = new LinkedHashMap<>();
    compact.put("enabled", p.compact().enabled());
    compact.put("strategy", p.compact().strategy());
    compact.put("order", p.compact().orderBy());
    compact.put("options", new java.util.TreeMap<>(p.compact().options()));
    ops.put(
        "apply-retention",
        Map.of(
            "enabled",
            p.applyRetention().enabled(),
            "keep",
            p.applyRetention().keep(),
            "delete-after-commit",
            p.applyRetention().deleteAfterCommit()));
    ops.put(
        "condense",
        Map.of(
            "enabled",
            p.condense().enabled(),
            "to",
            p.condense().to(),
            "older-than",
            duration(p.condense().olderThan())));
    ops.put("compact", compact);
    if (delta) {
      Map<String, Object> vacuum = new LinkedHashMap<>();
      vacuum.put("enabled", p.vacuum().enabled());
      vacuum.put("retention", duration(p.vacuum().retention()));
      vacuum.put("lite", p.vacuum().lite());
      vacuum.put("keep-versions", p.vacuum().keepVersions());
      ops.put("vacuum", vacuum);
      ops.put("checkpoint", Map.of("enabled", p.checkpoint().enabled()));
      Map<String, Object> cleanup = new LinkedHashMap<>();
      cleanup.put("enabled", p.cleanupLog().enabled());
      cleanup.put("retention", duration(p.cleanupLog().retention()));
      ops.put("cleanup-log", cleanup);
      return document(e, triggers, format.id(), ops);
    }
    ops.put(
        "remove-dangling-deletes", Map.of("enabled", p.removeDanglingDeletes().enabled()));
    ops.put(
        "convert-equality-deletes", Map.of("enabled", p.convertEqualityDeletes().enabled()));
    ops.put(
        "rewrite-position-deletes",
        Map.of(
            "enabled",
            p.rewritePositionDeletes().enabled(),
            "options",
            new java.util.TreeMap<>(p.rewritePositionDeletes().options())));
    ops.put(
        "rewrite-manifests",
        Map.of(
            "enabled",
            p.rewriteManifests().enabled(),
            "sort-by",
            p.rewriteManifests().sortBy()));
    ops.put(
        "compute-stats",
        Map.of(
            "enabled", p.computeStats().enabled(), "columns", p.computeStats().columns()));
    ops.put(
        "compute-partition-stats", Map.of("enabled", p.computePartitionStats().enabled()));
    Map<String, Object> expire = new LinkedHashMap<>();
    expire.put("enabled", p.expire().enabled());
    expire.put("older-than", duration(p.expire().olderThan()));
    expire.put("retain-last", p.expire().retainLast());
    ops.put("expire", expire);
    Map<String, Object> orphans = new LinkedHashMap<>();
    orphans.put("enabled", p.removeOrphans().enabled());
    orphans.put("older-than", duration(p.removeOrphans().olderThan()));
    orphans.put("quarantine", p.removeOrphans().quarantine());
    orphans.put("quarantine-retention", duration(p.removeOrphans().quarantineRetention()));
    ops.put("remove-orphans", orphans);
    return document(e, triggers, format.id(), ops);
  }

  private static Map<String, Object> document(
      EffectivePolicy e, Triggers triggers, String format, Map<String, Object> ops) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("table", e.table());
    out.put("format", format);
    out.put("matched", e.matched());
    out.put("operations", ops);
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("enabled", triggers.enabled());
    conditions(triggers).forEach(t::put);
    t.put("operations", triggers.operations());
    out.put("triggers", t);
    return out;
  }

  /** The trigger conditions that are set, by their resurfacer.yml keys, in the order docs/serve.md lists them. */
  private static Map<String, Object> conditions(Triggers t) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("commits", t.commits());
    c.put("small-files", t.smallFiles());
    c.put("delete-files", t.deleteFiles());
    c.put("deleted-row-ratio", t.deletedRowRatio());
    c.put("snapshots", t.snapshots());
    c.put("oldest-snapshot-age", duration(t.oldestSnapshotAge()));
    c.put("metadata-files", t.metadataFiles());
    c.put("since-last-run", duration(t.sinceLastRun()));
    c.values().removeIf(java.util.Objects::isNull);
    return c;
  }

  /** The text form of {@link #json}. */
  public static String render(EffectivePolicy e, Triggers triggers, Format format) {
    return render(e, format == Format.DELTA) + "\n" + triggersLine(triggers);
  }

  private static String triggersLine(Triggers t) {
    if (!t.enabled()) {
      return String.format(
          "  %-24s %s", "triggers", "disabled (serve watches this table, never maintains it)");
    }
    if (!t.any()) {
      return String.format(
          "  %-24s %s", "triggers", "none set (serve watches this table, never maintains it)");
    }
    StringBuilder d = new StringBuilder();
    conditions(t)
        .forEach((k, v) ->
            d.append(d.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
    d.append("; a fired trigger runs ")
        .append(
            t.operations().isEmpty()
                ? "the enabled operations above it calls for (small-files, delete-files, deleted-row-ratio: the layout ones;"
                    + " snapshots, oldest-snapshot-age, metadata-files: expire; commits, since-last-run: every one)"
                : String.join(", ", t.operations()));
    return String.format("  %-24s %-8s %s", "triggers", "any of", d);
  }

  private static String render(EffectivePolicy e, boolean delta) {
    TablePolicy p = e.policy();
    StringBuilder b = new StringBuilder();
    b.append(e.table())
        .append(delta ? " (delta)" : "")
        .append("  matched: ")
        .append(e.matched().isEmpty() ? "(defaults only)" : String.join(", ", e.matched()))
        .append("  (operations run in this order)\n");
    b.append(line(
        "apply-retention",
        p.applyRetention().enabled(),
        "keep " + p.applyRetention().keep()
            + (p.applyRetention().deleteAfterCommit()
                ? ", delete after commit"
                : ", keep trimmed files")));
    b.append(line(
        "condense",
        p.condense().enabled(),
        "to " + p.condense().to() + ", older-than "
            + Durations.format(p.condense().olderThan())));
    b.append(line(
        "compact",
        p.compact().enabled(),
        "strategy " + p.compact().strategy()
            + (p.compact().orderBy() == null ? "" : " (" + p.compact().orderBy() + ")")
            + (p.compact().options().isEmpty()
                ? (delta ? ", the table's delta.targetFileSize" : ", Spark's option defaults")
                : ", " + new java.util.TreeMap<>(p.compact().options()))));
    if (delta) {
      b.append(line(
          "vacuum",
          p.vacuum().enabled(),
          "retention "
              + (p.vacuum().retention() == null
                  ? "table property (delta.deletedFileRetentionDuration, 7 days)"
                  : Durations.format(p.vacuum().retention()))
              + (p.vacuum().lite() ? ", lite (tombstones in the log only, no listing)" : "")
              + (p.vacuum().keepVersions().isEmpty()
                  ? ""
                  : ", keeping versions "
                      + p.vacuum().keepVersions().stream()
                          .map(String::valueOf)
                          .collect(java.util.stream.Collectors.joining(",")))));
      b.append(line("checkpoint", p.checkpoint().enabled(), "of the latest version"));
      b.append(line(
          "cleanup-log",
          p.cleanupLog().enabled(),
          "retention "
              + (p.cleanupLog().retention() == null
                  ? "table property (delta.logRetentionDuration, 30 days)"
                  : Durations.format(p.cleanupLog().retention()))));
      return b.toString().stripTrailing();
    }
    b.append(line("remove-dangling-deletes", p.removeDanglingDeletes().enabled(), ""));
    b.append(line("convert-equality-deletes", p.convertEqualityDeletes().enabled(), ""));
    b.append(line(
        "rewrite-position-deletes",
        p.rewritePositionDeletes().enabled(),
        p.rewritePositionDeletes().options().isEmpty()
            ? ""
            : new java.util.TreeMap<>(p.rewritePositionDeletes().options()).toString()));
    b.append(line(
        "rewrite-manifests",
        p.rewriteManifests().enabled(),
        p.rewriteManifests().sortBy().isEmpty()
            ? "clustered by partition"
            : "clustered by " + String.join(", ", p.rewriteManifests().sortBy())));
    b.append(line(
        "compute-stats",
        p.computeStats().enabled(),
        p.computeStats().columns().isEmpty()
            ? "every primitive column"
            : String.join(", ", p.computeStats().columns())));
    b.append(line("compute-partition-stats", p.computePartitionStats().enabled(), ""));
    b.append(line(
        "expire",
        p.expire().enabled(),
        "older-than "
            + (p.expire().olderThan() == null
                ? "table property (history.expire.max-snapshot-age-ms)"
                : Durations.format(p.expire().olderThan()))
            + ", retain-last "
            + (p.expire().retainLast() == null
                ? "table property (history.expire.min-snapshots-to-keep)"
                : p.expire().retainLast())));
    b.append(line(
        "remove-orphans",
        p.removeOrphans().enabled(),
        "older-than " + Durations.format(p.removeOrphans().olderThan())
            + (p.removeOrphans().quarantine()
                ? ", quarantine (purged after "
                    + Durations.format(p.removeOrphans().quarantineRetention()) + ")"
                : "")));
    return b.toString().stripTrailing();
  }

  private static String line(String op, boolean enabled, String detail) {
    return String.format(
        "  %-24s %-8s %s%n", op, enabled ? "enabled" : "disabled", enabled ? detail : "");
  }

  private static String duration(Duration d) {
    return d == null ? null : Durations.format(d);
  }
}
