package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI in a fresh JVM under a real pseudo-terminal ({@code script} from util-linux): the bar is
 * drawn, moves and ends at 100%. Without a terminal the same run writes no escape code at all.
 */
class TerminalProgressCliTest {
  private static final Pattern PERCENT = Pattern.compile("(\\d{1,3})% ");

  @TempDir
  Path dir;

  @BeforeEach
  void threeDaysOfSmallFiles() throws Exception {
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      for (String name : List.of("a")) {
        Table table = Orders.create(catalog, "raw", name, 2);
        for (int day = 0; day < 3; day++) {
          for (int i = 0; i < 3; i++) {
            var append = table.newAppend();
            TableWrites.writeData(table, Orders.rows(day * 100L + i * 5L, 5, day))
                .forEach(append::appendFile);
            append.commit();
          }
        }
      }
    }
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        MaintainCliTest.catalogYml(lake)
            + "defaults:\n  compact: {min-input-files: 2}\n  expire: {older-than: 0s, retain-last: 1}\n");
  }

  @Test
  void compactionGroupsDrawABarThatMovesAndEndsAtOneHundredPercent() throws Exception {
    String screen = underTerminal(
        "compact", "raw.a", "--yes", "--min-input-files", "2", "--max-concurrent", "1");

    assertThat(screen).contains("compact lake.raw.a (3 groups)").contains("\u001b[");
    List<Integer> percents = percents(screen);
    assertThat(percents).as(screen).contains(0);
    assertThat(percents)
        .as("the bar moved between 0 and 100: " + percents)
        .anyMatch(p -> p > 0 && p < 100);
    assertThat(percents.get(percents.size() - 1)).as(screen).isEqualTo(100);
    // the bar stands in for the per-group lines; the report still follows it
    assertThat(screen)
        .doesNotContain(": committed, 3 files -> 1")
        .contains("compacted lake.raw.a: 9 files");
  }

  @Test
  void maintainCountsItsOperationsOnTheBar() throws Exception {
    String screen = underTerminal("maintain", "--yes");

    assertThat(screen).contains("maintain lake (1 table)");
    List<Integer> percents = percents(screen);
    assertThat(percents)
        .as("the bar moved between 0 and 100: " + percents)
        .anyMatch(p -> p > 0 && p < 100);
    assertThat(percents.get(percents.size() - 1)).as(screen).isEqualTo(100);
    // no log line tears the bar: the run's progress is on it, the outcome in the report
    assertThat(screen).doesNotContain("table=lake.raw.a").contains("lake.raw.a");
  }

  @Test
  void withoutATerminalNoEscapeCodeIsWritten() throws Exception {
    List<String> command = new ArrayList<>(List.of(
        java(), Main.class.getName(), "compact", "raw.a", "--yes", "--min-input-files", "2"));
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectError(err.toFile())
        .redirectInput(new File("/dev/null"));
    pb.environment().put("CLASSPATH", System.getProperty("java.class.path"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(Files.readString(err)).isZero();

    assertThat(out).contains("lake.raw.a").doesNotContain("\u001b");
    // the plain per-group log lines (with the CPU time content verification's reads took), and
    // nothing drawn
    assertThat(Files.readString(err))
        .contains(": committed, 3 files -> 1")
        .containsPattern(": committed, 3 files -> 1, [^,]+/s, verification \\d+\\.\\d\\d CPU-s, ")
        .doesNotContain("\u001b")
        .doesNotContain("%");
  }

  /** Runs the CLI with stdin and stdout on a pseudo-terminal 120 columns wide; returns what the terminal received. */
  private String underTerminal(String... args) throws Exception {
    assumeThat(Path.of("/usr/bin/script"))
        .as("script (util-linux) runs a command under a pseudo-terminal")
        .exists();
    StringBuilder shell = new StringBuilder("stty cols 120 rows 40; exec ")
        .append(java())
        .append(' ')
        .append(Main.class.getName());
    for (String a : args) {
      shell.append(" '").append(a).append('\'');
    }
    Path screen = dir.resolve("screen.txt");
    ProcessBuilder pb = new ProcessBuilder("script", "-qfec", shell.toString(), screen.toString())
        .directory(dir.toFile())
        .redirectInput(new File("/dev/null"))
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("script-out.txt").toFile());
    pb.environment().put("CLASSPATH", System.getProperty("java.class.path"));
    pb.environment().put("TERM", "xterm");
    int code = pb.start().waitFor();
    String text = Files.readString(screen, StandardCharsets.UTF_8);
    assertThat(code).as(text).isZero();
    return text;
  }

  private static List<Integer> percents(String screen) {
    List<Integer> out = new ArrayList<>();
    Matcher m = PERCENT.matcher(screen);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
