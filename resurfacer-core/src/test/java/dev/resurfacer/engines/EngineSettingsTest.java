package dev.resurfacer.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineSettingsTest {
  private static final String YAML = """
      engines:
        spark:
          remote: sc://127.0.0.1:15002
          conf:
            spark.executor.memory: 1g
        trino:
          url: jdbc:trino://127.0.0.1:8080
          password: ${env:TRINO_PASSWORD}
      defaults:
        engine: spark
      tables:
        raw.local:
          engine: local
      """;

  @Test
  void sectionsAreFlattenedSecretsResolvedAndRedactedAndThePolicyNamesTheEngine() {
    ResurfacerConfig c = ConfigFile.parse(YAML, "resurfacer.yml", new Secrets(Map.of("TRINO_PASSWORD", "s3cr3t-value")));
    EngineSettings spark = c.engine("spark");
    assertThat(spark.require("remote")).isEqualTo("sc://127.0.0.1:15002");
    assertThat(spark.under("conf")).containsExactly(Map.entry("spark.executor.memory", "1g"));
    EngineSettings trino = c.engine("trino");
    assertThat(trino.require("password")).isEqualTo("s3cr3t-value");
    assertThat(trino.redacted()).containsEntry("password", "****");
    assertThat(trino.toString()).doesNotContain("s3cr3t-value");
    assertThat(c.engine("local").values()).isEmpty();
    assertThat(c.policies().effective("raw.events").policy().engine()).isEqualTo("spark");
    assertThat(c.policies().effective("raw.local").policy().engine()).isEqualTo("local");
    assertThat(ConfigFile.parse("", "r", new Secrets(Map.of())).policies().effective("a.b").policy().engine()).isEqualTo("local");
  }

  @Test
  void typosAndMissingKeysAreOneLineErrorsWithTheKeyPath() {
    EngineSettings s = ConfigFile.parse(YAML, "r", new Secrets(Map.of("TRINO_PASSWORD", "x"))).engine("spark");
    assertThatThrownBy(() -> s.rejectUnknown(Set.of("remote", "master"), Set.of()))
        .isInstanceOf(UsageException.class)
        .hasMessage("unknown key 'engines.spark.conf.spark.executor.memory' (expected one of master, remote)");
    s.rejectUnknown(Set.of("remote"), Set.of("conf"));
    assertThatThrownBy(() -> s.require("master")).hasMessage("engines.spark.master is required in resurfacer.yml for --engine spark");
    assertThatThrownBy(() -> ConfigFile.parse("defaults:\n  engine: [spark]\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class).hasMessageContaining("defaults.engine must be a single value");
    assertThatThrownBy(() -> ConfigFile.parse("defaults:\n  engine: Spark!\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class).hasMessage("r: defaults.engine 'Spark!' is not an engine name (local, spark, trino, ...)");
    assertThatThrownBy(() -> ConfigFile.parse("engines:\n  spark:\n    conf:\n      a: {b: c}\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class).hasMessage("r: engines.spark.conf.a must be a single value");
  }

  @Test
  void theLocalEngineIsAlwaysAvailableAndUnknownNamesAreRefusedNamingTheKnownOnes() {
    assertThat(ExecutionEngines.names()).first().isEqualTo("local");
    assertThat(ExecutionEngines.capabilities()).anyMatch(c -> c.engine().equals("local") && c.operation().equals("compact") && c.works());
    assertThatThrownBy(() -> ExecutionEngines.provider("nosuch")).isInstanceOf(UsageException.class)
        .hasMessageStartingWith("unknown engine 'nosuch' (available: local");
  }
}
