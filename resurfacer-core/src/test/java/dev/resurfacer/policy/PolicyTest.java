package dev.resurfacer.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.Secrets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyTest {
  private static final String FLEET = """
      defaults:
        compact: {target-file-size: 256MB, min-input-files: 3}
        expire: {older-than: 7d, retain-last: 5}
        remove-orphans: {older-than: 3d}
      tables:
        "*":
          rewrite-manifests: {enabled: false}
        raw.*:
          compact: {min-input-files: 10, options: {delete-file-threshold: "2"}}
          expire: {older-than: 2d}
        "*.events":
          expire: {retain-last: 20}
          remove-orphans: {older-than: 1d}
        raw.ev*:
          remove-orphans: {older-than: 5d}
        raw.events:
          compact: {target-file-size: 1GB, partial-progress: true}
          remove-dangling-deletes: {enabled: false}
      """;

  private static Policies parse(String yaml) {
    return ConfigFile.parse(yaml, "resurfacer.yml", new Secrets(Map.of())).policies();
  }

  @Test
  void removeOrphansListingIsALocationPerTableAndReachesMaintain() {
    Policies policies = parse("""
        defaults:
          remove-orphans: {older-than: 8d, listing: "s3://inventory/lake/cfg/2026-11-30T01-00Z/manifest.json"}
        """);
    assertThat(policies.effective("raw.events").policy().removeOrphans().listing())
        .isEqualTo("s3://inventory/lake/cfg/2026-11-30T01-00Z/manifest.json");
    var op = dev.resurfacer.maintain.Maintain.fromPolicy(
            "raw.events", policies.effective("raw.events").policy())
        .operations()
        .stream()
        .filter(o -> o instanceof dev.resurfacer.maintain.RemoveOrphans)
        .findFirst()
        .orElseThrow();
    assertThat(((dev.resurfacer.maintain.RemoveOrphans) op).listing()).endsWith("manifest.json");
    assertThat(parse("defaults: {}")
            .effective("raw.events")
            .policy()
            .removeOrphans()
            .listing())
        .isNull();
    assertThatThrownBy(() -> parse("""
        defaults:
          remove-orphans: {listing: [a, b]}
        """))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("defaults.remove-orphans.listing");
  }

  @Test
  void rewriteManifestsSortByIsAListOfPartitionFields() {
    Policies policies = parse("""
        defaults:
          rewrite-manifests: {sort-by: [day, bucket]}
        tables:
          raw.flat:
            rewrite-manifests: {sort-by: "day"}
        """);
    assertThat(policies.effective("raw.events").policy().rewriteManifests().sortBy())
        .containsExactly("day", "bucket");
    assertThat(policies.effective("raw.flat").policy().rewriteManifests().sortBy())
        .containsExactly("day");
    assertThat(parse("defaults: {}")
            .effective("raw.events")
            .policy()
            .rewriteManifests()
            .sortBy())
        .isEmpty();
    assertThatThrownBy(() -> parse("""
        defaults:
          rewrite-manifests: {sort-by: [day, ""]}
        """))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "resurfacer.yml: defaults.rewrite-manifests.sort-by must list partition field names, e.g. [day, bucket]");
  }

  @Test
  void sortAndZOrderStrategiesCarryTheirOrder() {
    Policies policies = parse("""
        defaults:
          compact: {strategy: sort, sort-by: "ts DESC, id"}
        tables:
          "web.*":
            compact: {strategy: zorder, zorder-columns: [user_id, ts]}
          "web.flat":
            compact: {strategy: binpack}
          "raw.z":
            compact: {strategy: zorder}
        """);
    assertThat(policies.effective("raw.events").policy().compact())
        .extracting(TablePolicy.Compact::strategy, TablePolicy.Compact::orderBy)
        .containsExactly("sort", "ts DESC, id");
    TablePolicy.Compact web = policies.effective("web.clicks").policy().compact();
    assertThat(web.strategy()).isEqualTo("zorder");
    assertThat(web.orderBy()).isEqualTo("user_id,ts");
    assertThat(web.options()).isEmpty();
    assertThat(policies.effective("web.flat").policy().compact().orderBy()).isNull();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> policies.effective("raw.z"))
        .hasMessage("compact.strategy zorder needs compact.zorder-columns, e.g. [user_id, ts]");
  }

  @Test
  void thePolicysEngineSurvivesKeepingOnlyTheTablesFormatOperations() {
    Policies policies = parse("""
        defaults:
          engine: spark
        tables:
          "raw.*":
            engine: trino
        """);
    var plain = dev.resurfacer.maintain.Maintain.fromPolicy(
        "web.clicks", policies.effective("web.clicks").policy());
    assertThat(plain.retainOnly(o -> true).engine()).isEqualTo("spark");
    var raw = dev.resurfacer.maintain.Maintain.fromPolicy(
        "raw.events", policies.effective("raw.events").policy());
    assertThat(raw.retainOnly(o -> o instanceof dev.resurfacer.maintain.Compact).engine())
        .isEqualTo("trino");
  }

  @Test
  void everyOperationHasPolicyKeysAndTheNewOnesAreOffUnlessEnabled() {
    Policies policies = parse("""
        defaults:
          apply-retention: {enabled: true, keep: 20}
          compute-stats: {enabled: true, columns: [id, day]}
        tables:
          "raw.*":
            condense: {enabled: true, to: year, older-than: 400d}
            rewrite-position-deletes: {enabled: true, options: {min-input-files: "3"}}
            convert-equality-deletes: {enabled: true}
            compute-partition-stats: {enabled: true}
            apply-retention: {delete-after-commit: false}
        """);
    TablePolicy raw = policies.effective("raw.events").policy();
    assertThat(raw.applyRetention()).isEqualTo(new TablePolicy.ApplyRetention(true, 20, false));
    assertThat(raw.condense())
        .isEqualTo(new TablePolicy.Condense(true, "year", java.time.Duration.ofDays(400)));
    assertThat(raw.rewritePositionDeletes().options()).containsEntry("min-input-files", "3");
    assertThat(raw.convertEqualityDeletes().enabled()).isTrue();
    assertThat(raw.computeStats().columns()).containsExactly("id", "day");
    assertThat(raw.computePartitionStats().enabled()).isTrue();
    TablePolicy other = policies.effective("web.clicks").policy();
    assertThat(other.condense().enabled()).isFalse();
    assertThat(other.convertEqualityDeletes().enabled()).isFalse();
    assertThat(TablePolicy.BUILT_IN.computeStats().enabled()).isFalse();
    assertError(
        "defaults:\n  condense: {to: week}\n",
        "resurfacer.yml: defaults.condense.to 'week' is not one of day, month, year");
    assertError(
        "defaults:\n  compute-stats: {columns: []}\n",
        "resurfacer.yml: defaults.compute-stats.columns must list column names, e.g. [user_id, ts]");
    assertError(
        "defaults:\n  apply-retention: {keep: 0}\n",
        "resurfacer.yml: defaults.apply-retention.keep must be at least 1 (got 0)");
  }

  @Test
  void schedulingBesideAWriterIsCompactionOptions() {
    TablePolicy p = parse("""
        defaults:
          compact: {min-partition-idle: 10m, commit-every-groups: 4, commit-every: 2m}
        """).effective("raw.events").policy();
    assertThat(p.compact().options())
        .containsEntry("min-partition-idle", "10m")
        .containsEntry("commit-every-groups", "4")
        .containsEntry("commit-every", "2m");
    assertError(
        "defaults:\n  compact: {min-partition-idle: 0s}\n",
        "resurfacer.yml: defaults.compact.min-partition-idle must be greater than zero");
    assertError(
        "defaults:\n  compact: {commit-every-groups: 0}\n",
        "resurfacer.yml: defaults.compact.commit-every-groups must be at least 1 (got 0)");
    assertError(
        "defaults:\n  compact: {commit-every: soon}\n",
        "resurfacer.yml: defaults.compact.commit-every: invalid duration 'soon' (write it like 90d, 12h, 30m or 0s)");
  }

  @Test
  void mostSpecificEntryWinsKeyByKey() {
    Policies policies = parse(FLEET);
    EffectivePolicy events = policies.effective("raw.events");
    assertThat(events.matched()).containsExactly("*", "*.events", "raw.*", "raw.ev*", "raw.events");
    TablePolicy p = events.policy();
    assertThat(p.compact().options())
        .containsEntry("target-file-size-bytes", String.valueOf(1L << 30)) // exact name
        .containsEntry("min-input-files", "10") // raw.*
        .containsEntry("delete-file-threshold", "2") // raw.* options
        .containsEntry("partial-progress.enabled", "true");
    assertThat(p.expire()).isEqualTo(new TablePolicy.Expire(true, Duration.ofDays(2), 20));
    // raw.ev* has a longer literal prefix than raw.* and *.events, so its orphan age wins
    assertThat(p.removeOrphans().olderThan()).isEqualTo(Duration.ofDays(5));
    assertThat(p.removeDanglingDeletes().enabled()).isFalse();
    assertThat(p.rewriteManifests().enabled()).isFalse();

    TablePolicy clicks = policies.effective("web.events").policy();
    assertThat(clicks.compact().options())
        .containsEntry("target-file-size-bytes", String.valueOf(256L << 20))
        .containsEntry("min-input-files", "3");
    assertThat(clicks.expire()).isEqualTo(new TablePolicy.Expire(true, Duration.ofDays(7), 20));
    assertThat(clicks.removeOrphans().olderThan()).isEqualTo(Duration.ofDays(1));
    assertThat(clicks.removeDanglingDeletes().enabled()).isTrue();

    EffectivePolicy other = policies.effective("web.orders");
    assertThat(other.matched()).containsExactly("*");
    assertThat(other.policy().expire())
        .isEqualTo(new TablePolicy.Expire(true, Duration.ofDays(7), 5));
  }

  @Test
  void withoutConfigurationEveryOperationRunsWithEngineDefaults() {
    EffectivePolicy p = Policies.none().effective("db.t");
    assertThat(p.matched()).isEmpty();
    assertThat(p.policy()).isEqualTo(TablePolicy.BUILT_IN);
    assertThat(parse("catalogs: {}\n").effective("db.t").policy()).isEqualTo(TablePolicy.BUILT_IN);
  }

  @Test
  void vacuumLiteAndKeptVersionsComeFromThePolicyAndReachTheOperation() {
    Policies p = parse("""
        defaults:
          vacuum: {lite: true}
        tables:
          raw.events:
            vacuum: {keep-versions: [3, 7]}
          raw.clicks:
            vacuum: {keep-versions: "0, 12", lite: false}
        """);
    assertThat(p.effective("raw.events").policy().vacuum())
        .isEqualTo(new TablePolicy.Vacuum(true, null, true, List.of(3L, 7L)));
    assertThat(p.effective("raw.clicks").policy().vacuum())
        .isEqualTo(new TablePolicy.Vacuum(true, null, false, List.of(0L, 12L)));
    assertThat(p.effective("web.x").policy().vacuum())
        .isEqualTo(new TablePolicy.Vacuum(true, null, true, List.of()));
    var vacuum = dev.resurfacer.maintain.Maintain.fromPolicy(
            "raw.events", p.effective("raw.events").policy())
        .operations()
        .stream()
        .filter(o -> o instanceof dev.resurfacer.maintain.Vacuum)
        .findFirst()
        .orElseThrow();
    assertThat(vacuum)
        .isEqualTo(new dev.resurfacer.maintain.Vacuum(null, false, true, List.of(3L, 7L)));
    assertThat(vacuum.givenSettings()).containsExactly("keep-versions", "lite");
    assertThat(new dev.resurfacer.maintain.Vacuum(null, false).givenSettings()).isEmpty();

    assertError(
        "defaults:\n  vacuum: {keep-versions: [3, -1]}\n",
        "resurfacer.yml: defaults.vacuum.keep-versions must list table versions (0 or more), e.g. [3, 7] (got '-1')");
    assertError(
        "defaults:\n  vacuum: {keep-versions: [v3]}\n",
        "resurfacer.yml: defaults.vacuum.keep-versions must list table versions (0 or more), e.g. [3, 7] (got 'v3')");
    assertError(
        "defaults:\n  vacuum: {lite: sometimes}\n",
        "resurfacer.yml: defaults.vacuum.lite must be true or false (got 'sometimes')");
  }

  @Test
  void deltaOperationsHaveTheirOwnKeysAndEachFormatKeepsItsOwnOperations() {
    Policies p = parse("""
        defaults:
          vacuum: {retention: 10d}
          cleanup-log: {enabled: false}
        tables:
          raw.*:
            checkpoint: {enabled: true}
            cleanup-log: {enabled: true, retention: 40d}
        """);
    TablePolicy raw = p.effective("raw.events").policy();
    assertThat(raw.vacuum()).isEqualTo(new TablePolicy.Vacuum(true, Duration.ofDays(10)));
    assertThat(raw.checkpoint().enabled()).isTrue();
    assertThat(raw.cleanupLog()).isEqualTo(new TablePolicy.CleanupLog(true, Duration.ofDays(40)));
    TablePolicy other = p.effective("web.events").policy();
    assertThat(other.checkpoint().enabled()).as("checkpoint is off by default").isFalse();
    assertThat(other.cleanupLog().enabled()).isFalse();
    assertThat(TablePolicy.BUILT_IN.vacuum()).isEqualTo(new TablePolicy.Vacuum(true, null));

    var all = dev.resurfacer.maintain.Maintain.fromPolicy("raw.events", raw);
    assertThat(all.operations().stream().map(dev.resurfacer.maintain.Operation::name))
        .containsExactly(
            "compact",
            "remove-dangling-deletes",
            "rewrite-manifests",
            "expire",
            "remove-orphans",
            "vacuum",
            "checkpoint",
            "cleanup-log");
    var delta = all.retainOnly(o -> o instanceof dev.resurfacer.maintain.Compact
        || o instanceof dev.resurfacer.maintain.Vacuum
        || o instanceof dev.resurfacer.maintain.Checkpoint
        || o instanceof dev.resurfacer.maintain.CleanupLog);
    assertThat(delta.operations())
        .containsExactly(
            dev.resurfacer.maintain.Compact.binpack(),
            new dev.resurfacer.maintain.Vacuum(Duration.ofDays(10), false),
            new dev.resurfacer.maintain.Checkpoint(),
            new dev.resurfacer.maintain.CleanupLog(Duration.ofDays(40)));

    assertError(
        "defaults:\n  vacuum: {retain: 3d}\n",
        "resurfacer.yml: unknown key 'defaults.vacuum.retain' (expected one of enabled, keep-versions, lite, retention)");
    assertError(
        "defaults:\n  cleanup-log: {retention: -1d}\n",
        "resurfacer.yml: defaults.cleanup-log.retention must not be negative (got -1d)");
    assertError(
        "defaults:\n  checkpoint: {enabled: yes please}\n",
        "resurfacer.yml: defaults.checkpoint.enabled must be true or false (got 'yes please')");
  }

  @Test
  void globsMatchWholeNamesOnly() {
    assertThat(new TablePattern("raw.*", 0).matches("raw.a")).isTrue();
    assertThat(new TablePattern("raw.*", 0).matches("rawx.a")).isFalse();
    assertThat(new TablePattern("*.events", 0).matches("a.events")).isTrue();
    assertThat(new TablePattern("*.events", 0).matches("a.events_old")).isFalse();
    assertThat(new TablePattern("a.b+c", 0).matches("a.bbc")).isFalse();
    assertThat(new TablePattern("*", 0).matches("x.y")).isTrue();
  }

  @Test
  void everyConfigErrorIsOneLineNamingTheKeyPath() {
    assertError(
        "defaults:\n  compact: {target-file-sise: 1GB}\n",
        "resurfacer.yml: unknown key 'defaults.compact.target-file-sise' (expected one of commit-every, commit-every-groups, "
            + "delete-file-threshold, delete-ratio-threshold, enabled, layout, layout-min-gain, max-commits, max-concurrent, max-file-group-size, "
            + "max-file-size, min-file-size, min-input-files, min-partition-idle, options, partial-progress, rewrite-all, scan-reports, sort-by, strategy, target-file-size, "
            + "zorder-columns)");
    assertError(
        "defaults:\n  vacum: {enabled: true}\n",
        "resurfacer.yml: unknown key 'defaults.vacum' (expected one of apply-retention, checkpoint, cleanup-log, compact, "
            + "compute-partition-stats, compute-stats, condense, convert-equality-deletes, engine, expire, remove-dangling-deletes, "
            + "remove-orphans, rewrite-manifests, rewrite-position-deletes, triggers, vacuum)");
    assertError(
        "tables:\n  raw.*:\n    expire: {keep: 3}\n",
        "resurfacer.yml: unknown key 'tables.raw.*.expire.keep' (expected one of enabled, older-than, retain-last)");
    assertError(
        "defaults:\n  expire: {enabled: yes please}\n",
        "resurfacer.yml: defaults.expire.enabled must be true or false (got 'yes please')");
    assertError(
        "defaults:\n  expire: {retain-last: two}\n",
        "resurfacer.yml: defaults.expire.retain-last must be a whole number (got 'two')");
    assertError(
        "defaults:\n  expire: {retain-last: 0}\n",
        "resurfacer.yml: defaults.expire.retain-last must be at least 1 (got 0)");
    assertError(
        "defaults:\n  expire: {older-than: -5d}\n",
        "resurfacer.yml: defaults.expire.older-than must not be negative (got -5d)");
    assertError(
        "tables:\n  \"*.events\":\n    remove-orphans: {older-than: 3 days}\n",
        "resurfacer.yml: tables.*.events.remove-orphans.older-than: invalid duration '3 days' (write it like 90d, 12h, 30m or 0s)");
    assertError(
        "defaults:\n  remove-orphans: {older-than: [1d]}\n",
        "resurfacer.yml: defaults.remove-orphans.older-than must be a single value, not a array");
    assertError(
        "defaults:\n  compact: {target-file-size: lots}\n",
        "resurfacer.yml: defaults.compact.target-file-size: invalid size 'lots' (write it like 512MB or 1GB)");
    assertError(
        "defaults:\n  compact: {target-file-size: -1MB}\n",
        "resurfacer.yml: defaults.compact.target-file-size must not be negative (got -1MB)");
    assertError(
        "defaults:\n  compact: {target-file-size: 0MB}\n",
        "resurfacer.yml: defaults.compact.target-file-size must be greater than zero");
    assertError(
        "defaults:\n  compact: {target-file-size: 64MB, min-file-size: 128MB}\n",
        "resurfacer.yml: defaults.compact: target-file-size (64.0 MB) is below min-file-size (128 MB)");
    assertError(
        "defaults:\n  compact: {target-file-size: 1GB, max-file-size: 512MB}\n",
        "resurfacer.yml: defaults.compact: target-file-size (1.0 GB) is above max-file-size (512 MB)");
    assertError(
        "defaults:\n  compact: {delete-ratio-threshold: 1.5}\n",
        "resurfacer.yml: defaults.compact.delete-ratio-threshold must be a number in (0, 1] (got 1.5)");
    assertError(
        "defaults:\n  compact: {zorder-columns: []}\n",
        "resurfacer.yml: defaults.compact.zorder-columns must list column names, e.g. [user_id, ts]");
    assertError(
        "defaults:\n  compact: {strategy: shuffle}\n",
        "resurfacer.yml: defaults.compact.strategy 'shuffle' is not one of binpack, sort, zorder");
    assertError(
        "defaults:\n  compact: {options: [a]}\n",
        "resurfacer.yml: defaults.compact.options must be a mapping of keys to values");
    assertError(
        "defaults:\n  compact: {options: {min-input-files: {x: 1}}}\n",
        "resurfacer.yml: defaults.compact.options.min-input-files must be a single value, not a object");
    assertError(
        "defaults: [compact]\n", "resurfacer.yml: defaults must be a mapping of keys to values");
    assertError("tables: [raw.*]\n", "resurfacer.yml: tables must be a mapping of keys to values");
    assertError(
        "tables:\n  events:\n    expire: {enabled: false}\n",
        "resurfacer.yml: tables key 'events' must be namespace.table or a glob such as raw.* or *.events");
    assertError(
        "tables:\n  raw.t:\n    compact:\n",
        "resurfacer.yml: tables.raw.t.compact must be a mapping of keys to values");
  }

  @Test
  void sizesThatOnlyClashAfterLayeringAreCaughtForTheTable() {
    Policies policies = parse(
        "defaults:\n  compact: {min-file-size: 100MB}\ntables:\n  raw.*:\n    compact: {target-file-size: 64MB}\n");
    assertThatThrownBy(() -> policies.effective("raw.t"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "the effective policy of raw.t: target-file-size (64.0 MB) is below min-file-size (100 MB)");
  }

  @Test
  void layoutAutoTravelsAsCompactionSettingsAndBadValuesAreOneLineErrors() {
    var c = parse(
            "defaults:\n  compact: {layout: auto, layout-min-gain: 0.3, scan-reports: /var/scans}\n")
        .effective("db.t")
        .policy()
        .compact();
    assertThat(c.options())
        .containsEntry("layout", "auto")
        .containsEntry("layout.min-gain", "0.3")
        .containsEntry("layout.scan-reports", "/var/scans");
    var op = dev.resurfacer.maintain.Maintain.fromPolicy(
            "db.t",
            parse("defaults:\n  compact: {layout: auto}\n").effective("db.t").policy())
        .operations()
        .get(0);
    assertThat(((dev.resurfacer.maintain.Compact) op).autoLayout()).isTrue();
    // what an engine without the layout simulation refuses before it runs anything
    assertThat(op.givenSettings()).containsExactly("layout");
    var refused = dev.resurfacer.engines.ExecutionEngines.refusedSetting(
        "spark",
        java.util.List.of(
            dev.resurfacer.engines.EngineCapability.works("spark", "iceberg", "compact", "")
                .refusing("layout", "local only")),
        "iceberg",
        op);
    assertThat(refused)
        .hasValueSatisfying(m -> assertThat(m).contains("compact layout").contains("local only"));
    assertThat(((dev.resurfacer.maintain.Compact) op).withoutLayoutSettings().options())
        .doesNotContainKey("layout");
    assertError(
        "defaults:\n  compact: {layout: clever}\n",
        "resurfacer.yml: defaults.compact.layout 'clever' is not one of auto, fixed");
    assertError(
        "defaults:\n  compact: {layout-min-gain: 1.5}\n",
        "resurfacer.yml: defaults.compact.layout-min-gain must be a number in [0, 1) (got 1.5)");
  }

  private static void assertError(String yaml, String message) {
    assertThatThrownBy(() -> parse(yaml)).isInstanceOf(UsageException.class).hasMessage(message);
  }
}
