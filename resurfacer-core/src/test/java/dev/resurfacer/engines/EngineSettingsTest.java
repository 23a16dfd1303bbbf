package dev.resurfacer.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import java.util.List;
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
    ResurfacerConfig c = ConfigFile.parse(
        YAML, "resurfacer.yml", new Secrets(Map.of("TRINO_PASSWORD", "s3cr3t-value")));
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
    assertThat(ConfigFile.parse("", "r", new Secrets(Map.of()))
            .policies()
            .effective("a.b")
            .policy()
            .engine())
        .isEqualTo("local");
  }

  @Test
  void sparkConfCredentialsAreSecretByReferenceOrByNameAndScrubbedFromAnyText() {
    ResurfacerConfig c = ConfigFile.parse(
        """
        engines:
          spark:
            remote: sc://127.0.0.1:15002/;token=${env:CONNECT_TOKEN}
            conf:
              spark.hadoop.fs.s3a.secret.key: plain-s3-secret-value
              spark.hadoop.fs.s3a.access.key: AKIAPLAINACCESSKEY
              spark.custom.auth: ${env:CUSTOM_AUTH}
              spark.sql.shuffle.partitions: 4
        """,
        "r",
        new Secrets(
            Map.of("CONNECT_TOKEN", "tok-by-reference", "CUSTOM_AUTH", "auth-by-reference")));
    EngineSettings spark = c.engine("spark");
    assertThat(spark.isSecret("remote")).isTrue();
    assertThat(spark.isSecret("conf.spark.hadoop.fs.s3a.secret.key")).isTrue();
    assertThat(spark.isSecret("conf.spark.hadoop.fs.s3a.access.key")).isTrue();
    assertThat(spark.isSecret("conf.spark.custom.auth")).isTrue();
    assertThat(spark.isSecret("conf.spark.sql.shuffle.partitions")).isFalse();
    assertThat(spark.redacted())
        .containsEntry("conf.spark.hadoop.fs.s3a.secret.key", "****")
        .containsEntry("conf.spark.custom.auth", "****")
        .containsEntry("conf.spark.sql.shuffle.partitions", "4");
    String leaky =
        "failed: value 'auth-by-reference' for sc://127.0.0.1:15002/;token=tok-by-reference with plain-s3-secret-value,"
            + " AKIAPLAINACCESSKEY and fs.s3a.secret.key=other-secret at jdbc:postgresql://u:pw-in-url@h/db";
    String scrubbed = spark.scrub(leaky);
    for (String secret : List.of(
        "auth-by-reference",
        "tok-by-reference",
        "plain-s3-secret-value",
        "AKIAPLAINACCESSKEY",
        "other-secret",
        "pw-in-url")) {
      assertThat(scrubbed).doesNotContain(secret);
    }
    assertThat(scrubbed)
        .startsWith("failed: value '****' for ****")
        .contains("fs.s3a.secret.key=****")
        .contains("//****@h/db");
    assertThat(
            Secrets.redactText(
                "conf {\"fs.azure.account.key.a.dfs.core.windows.net\":\"azKey==\"} and api_key -> k-123, signature=sig9"))
        .doesNotContain("azKey")
        .doesNotContain("k-123")
        .doesNotContain("sig9");
    assertThat(
            Secrets.redactText(
                "403 on https://a.blob.core.windows.net/c/x?sv=2024-08-04&se=2026&sig=AbC%2Fd123%3D&sp=r"))
        .doesNotContain("AbC")
        .contains("sig=****&sp=r");
    for (String key : List.of(
        "spark.hadoop.fs.azure.account.key.a.dfs.core.windows.net",
        "spark.hadoop.google.cloud.auth.service.account.private.key",
        "spark.custom.apikey",
        "spark.custom.sas.signature")) {
      assertThat(Secrets.looksSecret(key)).as(key).isTrue();
    }
    for (String plain : List.of(
        "cannot read secret file /run/x: no such file",
        "serve.token: environment variable T is not set")) {
      assertThat(Secrets.redactText(plain)).isEqualTo(plain);
    }
  }

  @Test
  void typosAndMissingKeysAreOneLineErrorsWithTheKeyPath() {
    EngineSettings s =
        ConfigFile.parse(YAML, "r", new Secrets(Map.of("TRINO_PASSWORD", "x"))).engine("spark");
    assertThatThrownBy(() -> s.rejectUnknown(Set.of("remote", "master"), Set.of()))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "unknown key 'engines.spark.conf.spark.executor.memory' (expected one of master, remote)");
    s.rejectUnknown(Set.of("remote"), Set.of("conf"));
    assertThatThrownBy(() -> s.require("master"))
        .hasMessage("engines.spark.master is required in resurfacer.yml for --engine spark");
    assertThatThrownBy(
            () -> ConfigFile.parse("defaults:\n  engine: [spark]\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("defaults.engine must be a single value");
    assertThatThrownBy(
            () -> ConfigFile.parse("defaults:\n  engine: Spark!\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class)
        .hasMessage("r: defaults.engine 'Spark!' is not an engine name (local, spark, trino, ...)");
    assertThatThrownBy(() -> ConfigFile.parse(
            "engines:\n  spark:\n    conf:\n      a: {b: c}\n", "r", new Secrets(Map.of())))
        .isInstanceOf(UsageException.class)
        .hasMessage("r: engines.spark.conf.a must be a single value");
  }

  @Test
  void theLocalEngineIsAlwaysAvailableAndUnknownNamesAreRefusedNamingTheKnownOnes() {
    assertThat(ExecutionEngines.names()).first().isEqualTo("local");
    assertThat(ExecutionEngines.capabilities())
        .anyMatch(c -> c.engine().equals("local") && c.operation().equals("compact") && c.works());
    assertThatThrownBy(() -> ExecutionEngines.provider("nosuch"))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("unknown engine 'nosuch' (available: local");
  }
}
