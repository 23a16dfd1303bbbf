package dev.resurfacer.spark.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.spark.SparkEngine;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The SQL text the Spark engine sends: identifiers and literals survive whatever names a user has. */
class SparkTableTest {
  @Test
  void identifiersAndLiteralsAreQuotedSoNoNameEscapesItsPlace() {
    SparkTable t = new SparkTable("lake", List.of("raw`s", "it's"));
    assertThat(t.qualified()).isEqualTo("`lake`.`raw``s`.`it's`");
    assertThat(t.call("rewrite_manifests"))
        .isEqualTo("CALL `lake`.system.rewrite_manifests(table => '`raw``s`.`it\\'s`')");
    assertThat(SparkTable.string("a\\'b")).isEqualTo("'a\\\\\\'b'");
  }

  @Test
  void compactionMapsStrategyOrderAndOptionNamesOneToOne() {
    SparkTable t = new SparkTable("lake", List.of("db", "t"));
    Map<String, String> options = new LinkedHashMap<>();
    options.put("min-input-files", "2");
    options.put("rewrite-all", "true");
    assertThat(SparkCompact.call(t, new Compact("binpack", null, options), null))
        .isEqualTo(
            "CALL `lake`.system.rewrite_data_files(table => '`db`.`t`', strategy => 'binpack',"
                + " options => map('min-input-files', '2', 'rewrite-all', 'true'))");
    assertThat(SparkCompact.call(t, Compact.sort("id DESC NULLS LAST"), null))
        .isEqualTo(
            "CALL `lake`.system.rewrite_data_files(table => '`db`.`t`', strategy => 'sort', sort_order => 'id DESC NULLS LAST')");
    assertThat(SparkCompact.call(t, Compact.zOrder("a", "b"), null))
        .isEqualTo(
            "CALL `lake`.system.rewrite_data_files(table => '`db`.`t`', strategy => 'sort', sort_order => 'zorder(a,b)')");
  }

  @Test
  void declarationsNeedNoConnectionAndUnknownSettingsAreOneLine() {
    SparkEngine.Provider provider = new SparkEngine.Provider();
    assertThat(provider.capabilities())
        .anyMatch(c -> c.operation().equals("compact") && c.works())
        .anyMatch(c -> c.format().equals("delta") && c.operation().equals("compact") && c.works())
        .anyMatch(c -> c.format().equals("delta")
            && c.operation().equals("checkpoint")
            && !c.works()
            && c.note().contains("--engine local"));
    EngineSettings typo = new EngineSettings("spark", Map.of("remtoe", "sc://x:1"), Set.of());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> provider.open(typo))
        .hasMessageStartingWith("unknown key 'engines.spark.remtoe'");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> provider.open(EngineSettings.none("spark")))
        .hasMessage("engines.spark.remote is required in resurfacer.yml for --engine spark");
  }
}
