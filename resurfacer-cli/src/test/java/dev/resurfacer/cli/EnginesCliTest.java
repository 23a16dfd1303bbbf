package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnginesCliTest {
  @TempDir Path dir;

  @Test
  void enginesListsEveryDeclarationAsTextAndJson() {
    CliRun text = CliRun.run(dir, "engines");
    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).startsWith("ENGINE").containsPattern("local +iceberg +compact +works")
        .containsPattern("local +delta +vacuum +works");
    CliRun json = CliRun.run(dir, "engines", "--output", "json");
    assertThat(json.out()).contains("\"engine\" : \"local\"").contains("\"operation\" : \"remove-orphans\"");
  }

  @Test
  void anUnknownEngineFromTheFlagOrThePolicyIsOneLineExitTwoAndCreatesNothing() throws Exception {
    for (String verb : new String[] {"compact", "expire", "remove-orphans", "rewrite-manifests", "remove-dangling-deletes"}) {
      CliRun r = CliRun.run(dir, verb, "shop.orders", "--engine", "flink", "--yes");
      assertThat(r.exitCode()).as(verb).isEqualTo(2);
      assertThat(r.err().strip()).as(verb).startsWith("error: unknown engine 'flink' (available: local").doesNotContain("\n");
    }
    CliRun maintain = CliRun.run(dir, "maintain", "--engine", "flink", "--yes");
    assertThat(maintain.exitCode()).isEqualTo(2);
    assertThat(dir.resolve("resurfacer-data")).doesNotExist();

    Files.writeString(dir.resolve("resurfacer.yml"), "defaults:\n  engine: flink\n");
    CliRun byPolicy = CliRun.run(dir, "compact", "shop.orders");
    assertThat(byPolicy.exitCode()).isEqualTo(2);
    assertThat(byPolicy.err()).startsWith("error: unknown engine 'flink'");
  }
}
