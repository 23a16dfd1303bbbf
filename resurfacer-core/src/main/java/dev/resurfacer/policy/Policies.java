package dev.resurfacer.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code defaults:} and {@code tables:} sections of {@code resurfacer.yml}, already validated.
 * {@link #effective} layers, for one table: the built-in policy, then {@code defaults:}, then every
 * matching {@code tables:} entry from least to most specific, each overriding only the keys it sets.
 *
 * <pre>
 * Policies policies = config.policies();
 * EffectivePolicy p = policies.effective("raw.events");   // raw.events > raw.* > * > defaults
 * </pre>
 */
public final class Policies {
  private final PolicyLayer defaults;
  private final List<Rule> rules;

  record Rule(TablePattern pattern, PolicyLayer layer) {}

  Policies(PolicyLayer defaults, List<Rule> rules) {
    this.defaults = defaults;
    this.rules = List.copyOf(rules);
  }

  public static Policies none() {
    return new Policies(PolicyLayer.EMPTY, List.of());
  }

  /** Whether {@code table} matches {@code glob} as a {@code tables:} key would ({@code *} matches any run of characters). */
  public static boolean globMatches(String glob, String table) {
    return dev.resurfacer.names.NameGlob.parse(glob, "glob").matches(table);
  }

  /** The {@code tables:} patterns, in file order. */
  public List<String> patterns() {
    return rules.stream().map(r -> r.pattern().text()).toList();
  }

  public EffectivePolicy effective(String table) {
    List<Rule> matching = matching(table);
    Map<String, Map<String, Object>> merged = merged(matching);
    TablePolicy policy = build(merged);
    PolicyLayer.checkCompactSizes(
        policy.compact().options(), "the effective policy of " + table + ": ");
    return new EffectivePolicy(
        table, matching.stream().map(r -> r.pattern().text()).toList(), policy);
  }

  /** The table's {@code triggers:}, merged key by key like the rest of the policy ({@link Triggers#NONE} when none is set). */
  public Triggers triggers(String table) {
    return Triggers.from(merged(matching(table)).getOrDefault("triggers", Map.of()));
  }

  private List<Rule> matching(String table) {
    List<Rule> matching = new ArrayList<>();
    for (Rule r : rules) {
      if (r.pattern().matches(table)) {
        matching.add(r);
      }
    }
    matching.sort((a, b) -> TablePattern.SPECIFICITY.compare(a.pattern(), b.pattern()));
    return matching;
  }

  private Map<String, Map<String, Object>> merged(List<Rule> matching) {
    Map<String, Map<String, Object>> merged = new LinkedHashMap<>();
    defaults.mergeInto(merged);
    for (Rule r : matching) {
      r.layer().mergeInto(merged);
    }
    return merged;
  }

  private static TablePolicy build(Map<String, Map<String, Object>> m) {
    TablePolicy b = TablePolicy.BUILT_IN;
    Map<String, Object> c = m.getOrDefault("compact", Map.of());
    Map<String, String> options = new LinkedHashMap<>(b.compact().options());
    c.forEach((k, v) -> {
      if (v instanceof String s && !k.equals("strategy")) {
        options.put(k, s);
      }
    });
    Map<String, Object> e = m.getOrDefault("expire", Map.of());
    Map<String, Object> o = m.getOrDefault("remove-orphans", Map.of());
    Map<String, Object> v = m.getOrDefault("vacuum", Map.of());
    Map<String, Object> l = m.getOrDefault("cleanup-log", Map.of());
    String strategy = (String) c.getOrDefault("strategy", b.compact().strategy());
    String order = null;
    if (strategy.equals("sort") && c.get("sort-by") instanceof PolicyLayer.Order sortBy) {
      order = sortBy.text();
    } else if (strategy.equals("zorder")) {
      if (!(c.get("zorder-columns") instanceof PolicyLayer.Order columns)) {
        throw new dev.resurfacer.UsageException(
            "compact.strategy zorder needs compact.zorder-columns, e.g. [user_id, ts]");
      }
      order = columns.text();
    }
    return new TablePolicy(
        new TablePolicy.Compact(
            flag(c, b.compact().enabled()), strategy, order, Collections.unmodifiableMap(options)),
        new TablePolicy.Expire(
            flag(e, b.expire().enabled()),
            (Duration) e.getOrDefault("older-than", b.expire().olderThan()),
            (Integer) e.getOrDefault("retain-last", b.expire().retainLast())),
        new TablePolicy.RemoveOrphans(
            flag(o, b.removeOrphans().enabled()),
            (Duration) o.getOrDefault("older-than", b.removeOrphans().olderThan()),
            (Boolean) o.getOrDefault("quarantine", b.removeOrphans().quarantine()),
            (Duration)
                o.getOrDefault("quarantine-retention", b.removeOrphans().quarantineRetention()),
            (String) o.getOrDefault("listing", b.removeOrphans().listing())),
        new TablePolicy.RemoveDanglingDeletes(
            flag(m.getOrDefault("remove-dangling-deletes", Map.of()), true)),
        rewriteManifests(m.getOrDefault("rewrite-manifests", Map.of()), b.rewriteManifests()),
        new TablePolicy.Vacuum(
            flag(v, b.vacuum().enabled()),
            (Duration) v.getOrDefault("retention", b.vacuum().retention()),
            (Boolean) v.getOrDefault("lite", b.vacuum().lite()),
            v.get("keep-versions") instanceof PolicyLayer.Versions kept
                ? kept.numbers()
                : b.vacuum().keepVersions()),
        new TablePolicy.Checkpoint(
            flag(m.getOrDefault("checkpoint", Map.of()), b.checkpoint().enabled())),
        new TablePolicy.CleanupLog(flag(l, b.cleanupLog().enabled()), (Duration)
            l.getOrDefault("retention", b.cleanupLog().retention())),
        applyRetention(m.getOrDefault("apply-retention", Map.of()), b.applyRetention()),
        new TablePolicy.Condense(
            flag(m.getOrDefault("condense", Map.of()), b.condense().enabled()),
            (String) m.getOrDefault("condense", Map.of())
                .getOrDefault("to", b.condense().to()),
            (Duration) m.getOrDefault("condense", Map.of())
                .getOrDefault("older-than", b.condense().olderThan())),
        rewritePositionDeletes(
            m.getOrDefault("rewrite-position-deletes", Map.of()), b.rewritePositionDeletes()),
        new TablePolicy.ConvertEqualityDeletes(flag(
            m.getOrDefault("convert-equality-deletes", Map.of()),
            b.convertEqualityDeletes().enabled())),
        computeStats(m.getOrDefault("compute-stats", Map.of()), b.computeStats()),
        new TablePolicy.ComputePartitionStats(flag(
            m.getOrDefault("compute-partition-stats", Map.of()),
            b.computePartitionStats().enabled())),
        (String) m.getOrDefault(PolicyLayer.ENGINE, Map.of())
            .getOrDefault(PolicyLayer.ENGINE, b.engine()));
  }

  private static TablePolicy.ApplyRetention applyRetention(
      Map<String, Object> r, TablePolicy.ApplyRetention b) {
    return new TablePolicy.ApplyRetention(
        flag(r, b.enabled()), (Integer) r.getOrDefault("keep", b.keep()), (Boolean)
            r.getOrDefault("delete-after-commit", b.deleteAfterCommit()));
  }

  private static TablePolicy.RewritePositionDeletes rewritePositionDeletes(
      Map<String, Object> r, TablePolicy.RewritePositionDeletes b) {
    Map<String, String> options = new LinkedHashMap<>(b.options());
    r.forEach((k, v) -> {
      if (v instanceof String s) {
        options.put(k, s);
      }
    });
    return new TablePolicy.RewritePositionDeletes(flag(r, b.enabled()), options);
  }

  private static TablePolicy.RewriteManifests rewriteManifests(
      Map<String, Object> r, TablePolicy.RewriteManifests b) {
    return new TablePolicy.RewriteManifests(
        flag(r, b.enabled()),
        r.get("sort-by") instanceof PolicyLayer.Columns fields ? fields.names() : b.sortBy());
  }

  private static TablePolicy.ComputeStats computeStats(
      Map<String, Object> c, TablePolicy.ComputeStats b) {
    return new TablePolicy.ComputeStats(
        flag(c, b.enabled()),
        c.get("columns") instanceof PolicyLayer.Columns columns ? columns.names() : b.columns());
  }

  private static boolean flag(Map<String, Object> section, boolean fallback) {
    Object v = section.get("enabled");
    return v == null ? fallback : (Boolean) v;
  }
}
