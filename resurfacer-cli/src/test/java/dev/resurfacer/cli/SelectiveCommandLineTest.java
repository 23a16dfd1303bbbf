package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A run builds only what its arguments need (Main.commandLine(ctx, args)); what it prints and exits with is the same as with every verb built. */
class SelectiveCommandLineTest {
  @TempDir
  Path dir;

  private record Outcome(int exitCode, String out, String err) {}

  private Outcome run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Outcome(code, out.toString(), err.toString());
  }

  @Test
  void everyVerbsHelpAndUsageErrorsAndTheRootsHelpAndVersionPrintTheSameAsWithEveryVerbBuilt() {
    CliContext ctx = new CliContext(Map.of(), dir, dir.resolve("home"));
    List<String[]> cases = new ArrayList<>();
    cases.add(new String[] {});
    cases.add(new String[] {"--help"});
    cases.add(new String[] {"-h"});
    cases.add(new String[] {"--version"});
    cases.add(new String[] {"-V"});
    cases.add(new String[] {"nosuch-verb"});
    cases.add(new String[] {"help", "compact"});
    cases.add(new String[] {"demo", "query", "--help"});
    cases.add(new String[] {"describe"});
    for (Class<?> verb : Main.VERBS) {
      String name = verb.getAnnotation(Command.class).name();
      cases.add(new String[] {name, "--help"});
      cases.add(new String[] {name, "--no-such-flag"});
    }
    for (String[] args : cases) {
      Outcome full = run(Main.commandLine(ctx), args);
      Outcome selective = run(Main.commandLine(ctx, args), args);
      assertThat(selective).as(String.join(" ", args)).isEqualTo(full);
    }
    assertThat(run(Main.commandLine(ctx, "--help"), "--help").out())
        .contains("compact")
        .contains("vacuum")
        .doesNotContain("__train-archive");
    assertThat(Main.commandLine(ctx, "describe", "db.t").getSubcommands().keySet())
        .containsExactly("describe");
  }
}
