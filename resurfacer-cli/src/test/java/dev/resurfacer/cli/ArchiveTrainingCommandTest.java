package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveTrainingCommandTest {
  @TempDir
  Path dir;

  @Test
  void trainsOnATableItCreatesThatDescribeReadsThroughTheConfigurationItWrote() {
    CliContext ctx = new CliContext(Map.of(), dir, dir);
    assertThat(Main.commandLine(ctx).execute("__train-archive", "run")).isEqualTo(Main.OK);

    Path config = dir.resolve("run/resurfacer.yml");
    assertThat(config).exists();
    StringWriter out = new StringWriter();
    int code = Main.commandLine(ctx)
        .setOut(new PrintWriter(out))
        .execute("describe", "db.t", "--config", config.toString(), "--output", "json");
    assertThat(code).isEqualTo(Main.OK);
    assertThat(out.toString()).contains("\"data_files\" : 12");

    StringWriter delta = new StringWriter();
    code = Main.commandLine(ctx)
        .setOut(new PrintWriter(delta))
        .execute("describe", dir.resolve("run/delta").toString(), "--output", "json");
    assertThat(code).isEqualTo(Main.OK);
    assertThat(delta.toString()).contains("\"format\" : \"delta\"").contains("\"data_files\" : 4");
  }

  @Test
  void theLongTrainingCompactsTheDeltaTableItCreates() {
    CliContext ctx = new CliContext(Map.of(), dir, dir);
    assertThat(Main.commandLine(ctx).execute("__train-archive", "--long", "run"))
        .isEqualTo(Main.OK);

    StringWriter delta = new StringWriter();
    int code = Main.commandLine(ctx)
        .setOut(new PrintWriter(delta))
        .execute("describe", dir.resolve("run/delta").toString(), "--output", "json");
    assertThat(code).isEqualTo(Main.OK);
    assertThat(delta.toString())
        .as("four files of 50 rows compacted into one")
        .contains("\"data_files\" : 1");
  }

  @Test
  void isHiddenFromTheHelp() {
    StringWriter out = new StringWriter();
    Main.commandLine(new CliContext(Map.of(), dir, dir))
        .setOut(new PrintWriter(out))
        .execute("--help");
    assertThat(out.toString()).doesNotContain("__train-archive");
  }
}
