package dev.resurfacer.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.ConfigFile;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.policy.Triggers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code triggers:} and {@code serve:} in resurfacer.yml: merged like policies, validated strictly. */
class ServeConfigTest {
  private static ResurfacerConfig parse(String yaml) {
    return ConfigFile.parse(yaml, "resurfacer.yml", new Secrets(Map.of("TOKEN", "s3cret")));
  }

  private static void assertError(String yaml, String message) {
    assertThatThrownBy(() -> parse(yaml)).isInstanceOf(UsageException.class).hasMessage(message);
  }

  @Test
  void theMostSpecificTriggersWinKeyByKey() {
    ResurfacerConfig c = parse("""
        defaults:
          triggers: {small-files: 50, snapshots: 200, since-last-run: 1d}
        tables:
          raw.*:
            triggers: {small-files: 20, deleted-row-ratio: 0.1}
          raw.events:
            triggers: {commits: 100, operations: [compact, expire]}
          raw.quiet:
            triggers: {enabled: false}
        """);
    Triggers events = c.policies().triggers("raw.events");
    assertThat(events.smallFiles()).isEqualTo(20);
    assertThat(events.snapshots()).isEqualTo(200);
    assertThat(events.sinceLastRun()).isEqualTo(Duration.ofDays(1));
    assertThat(events.deletedRowRatio()).isEqualTo(0.1);
    assertThat(events.commits()).isEqualTo(100);
    assertThat(events.operations()).containsExactly("compact", "expire");
    assertThat(c.policies().triggers("other.t").smallFiles()).isEqualTo(50);
    assertThat(c.policies().triggers("other.t").operations()).isEmpty();
    assertThat(c.policies().triggers("raw.quiet").any()).isFalse();
    assertThat(parse("").policies().triggers("a.b").any()).isFalse();
  }

  @Test
  void malformedTriggersAreOneLineNamingTheKeyPath() {
    assertError(
        "defaults:\n  triggers: {small-file: 5}\n",
        "resurfacer.yml: unknown key 'defaults.triggers.small-file' (expected one of "
            + "commits, delete-files, deleted-row-ratio, enabled, metadata-files, oldest-snapshot-age, operations, since-last-run, "
            + "small-files, snapshots)");
    assertError(
        "tables:\n  raw.*:\n    triggers: {small-files: -3}\n",
        "resurfacer.yml: tables.raw.*.triggers.small-files must be at least 1 (got -3)");
    assertError(
        "defaults:\n  triggers: {deleted-row-ratio: 2}\n",
        "resurfacer.yml: defaults.triggers.deleted-row-ratio must be a number in (0, 1] (got 2)");
    assertError(
        "defaults:\n  triggers: {since-last-run: soon}\n",
        "resurfacer.yml: defaults.triggers.since-last-run: invalid duration 'soon' (write it like 90d, 12h, 30m or 0s)");
    assertError(
        "defaults:\n  triggers: {operations: [compact, optimize]}\n",
        "resurfacer.yml: defaults.triggers.operations: 'optimize' is not one of checkpoint, cleanup-log, compact, expire, "
            + "remove-dangling-deletes, remove-orphans, rewrite-manifests, vacuum");
  }

  @Test
  void theServeSectionIsStrictAndKeepsSecretsAsReferences() {
    ServeSettings s = parse(
            "serve: {interval: 10s, concurrency: 3, bind: 0.0.0.0, port: 0, token: '${env:TOKEN}'}\n")
        .serve();
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.concurrency()).isEqualTo(3);
    assertThat(s.loopback()).isFalse();
    assertThat(s.token(new Secrets(Map.of("TOKEN", "s3cret")))).isEqualTo("s3cret");
    assertThat(s.toString()).doesNotContain("s3cret");
    assertThat(parse("").serve()).isEqualTo(ServeSettings.DEFAULTS);
    // a reference whose variable is unset fails serve only, not every verb that reads the file
    ServeSettings unset =
        parse("serve: {bind: 0.0.0.0, token: '${env:MISSING}'}\n").serve();
    assertThatThrownBy(() -> unset.token(new Secrets(Map.of())))
        .hasMessage("serve.token: environment variable MISSING is not set");

    assertError(
        "serve: {intervall: 10s}\n",
        "resurfacer.yml: unknown key 'serve.intervall' (expected one of backoff, bind, "
            + "concurrency, history, history-password, history-user, interval, lease, max-backoff, min-interval, port, shutdown-grace, token)");
    assertError(
        "serve: {token: s3cret}\n",
        "resurfacer.yml: serve.token must be a secret reference (${env:NAME} or ${file:PATH}), not the token itself");
    assertError(
        "serve: {port: 70000}\n",
        "resurfacer.yml: serve.port must be a whole number from 0 to 65535 (got '70000')");
    assertError(
        "serve: {interval: 0s}\n", "resurfacer.yml: serve.interval must be greater than zero");
    assertThatThrownBy(() -> parse("serve: {bind: 0.0.0.0}\n").serve().token(new Secrets(Map.of())))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("serve.bind 0.0.0.0 is not loopback: set serve.token");
    assertThat(parse("serve: {bind: 127.0.0.1}\n").serve().token(new Secrets(Map.of())))
        .isNull();
    assertThat(List.of(ServeSettings.DEFAULTS.bind())).containsExactly("127.0.0.1");
  }
}
