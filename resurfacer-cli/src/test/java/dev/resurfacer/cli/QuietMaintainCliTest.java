package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** In a fresh JVM per run, as cron starts it: the log levels are process-wide, so an in-process run would not show them. */
class QuietMaintainCliTest {
  @TempDir
  Path dir;

  @Test
  void quietDropsTheProgressLinesButKeepsTheReport() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Fleet.smallFiles(catalog, "raw", "a", 3);
    }
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        MaintainCliTest.catalogYml(lake) + "defaults:\n  compact: {min-input-files: 2}\n");

    Run loud = cli("maintain", "--yes");
    assertThat(loud.code).as(loud.err).isZero();
    assertThat(loud.err).contains("table=lake.raw.a");
    assertThat(loud.out).contains("lake.raw.a");

    Run quiet = cli("maintain", "--yes", "--quiet");
    assertThat(quiet.code).as(quiet.err).isZero();
    assertThat(quiet.err).isEmpty();
    assertThat(quiet.out).contains("lake.raw.a");
  }

  private record Run(int code, String out, String err) {}

  private Run cli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        // the test resources' simplelogger.properties hides our info lines; this is the shipped
        // one's setting
        "-Dorg.slf4j.simpleLogger.log.dev.resurfacer=info",
        "-cp",
        System.getProperty("java.class.path"),
        Main.class.getName()));
    command.addAll(List.of(args));
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectError(err.toFile())
        .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out, Files.readString(err));
  }
}
