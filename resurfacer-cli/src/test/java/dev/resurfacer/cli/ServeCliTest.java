package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's bad input: one clear line, exit 2, nothing started and no history written. */
class ServeCliTest {
  @TempDir
  Path dir;

  Path lake;

  @BeforeEach
  void table() {
    lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Fleet.smallFiles(catalog, "raw", "a", 2);
    }
  }

  private CliRun serve(String extraYaml, Map<String, String> env, String... args) throws Exception {
    Files.writeString(dir.resolve("resurfacer.yml"), MaintainCliTest.catalogYml(lake) + extraYaml);
    String[] all = new String[args.length + 1];
    all[0] = "serve";
    System.arraycopy(args, 0, all, 1, args.length);
    return CliRun.run(dir, env, all);
  }

  private void assertUsage(CliRun run, String message) {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: " + message + System.lineSeparator());
    assertThat(run.out()).isEmpty();
    assertThat(dir.resolve("resurfacer-history.db")).doesNotExist();
  }

  @Test
  void malformedTriggersNameTheKeyPath() throws Exception {
    assertUsage(
        serve("tables:\n  raw.*:\n    triggers: {small-files: many}\n", Map.of(), "--yes"),
        dir.resolve("resurfacer.yml")
            + ": tables.raw.*.triggers.small-files must be a whole number (got 'many')");
  }

  @Test
  void aPortInUseIsAUsageError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      CliRun run = serve(
          "",
          Map.of(),
          "--port",
          Integer.toString(port),
          "--history",
          dir.resolve("h.db").toString());
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.err())
          .startsWith("error: cannot listen on 127.0.0.1:" + port + ": address already in use");
      assertThat(run.err().lines()).hasSize(1);
    }
  }

  @Test
  void offLoopbackWithoutATokenIsRefusedAndATokenIsNeverPrinted() throws Exception {
    assertUsage(
        serve("", Map.of(), "--bind", "0.0.0.0"),
        "serve.bind 0.0.0.0 is not loopback: set serve.token to a secret "
            + "reference (${env:NAME} or ${file:PATH}) so the dashboard and /metrics require it");
    assertUsage(
        serve("serve: {bind: 0.0.0.0, token: '${env:SERVE_TOKEN}'}\n", Map.of(), "--yes"),
        "serve.token: environment variable SERVE_TOKEN is not set");
    CliRun literal = serve("serve: {token: hunter2-literal}\n", Map.of("SERVE_TOKEN", "x"));
    assertThat(literal.exitCode()).isEqualTo(2);
    assertThat(literal.err())
        .contains("serve.token must be a secret reference")
        .doesNotContain("hunter2-literal");
  }

  @Test
  void aBadPortFlagIsAUsageError() throws Exception {
    assertUsage(
        serve("", Map.of(), "--port", "70000"), "--port must be from 0 to 65535 (got 70000)");
  }
}
