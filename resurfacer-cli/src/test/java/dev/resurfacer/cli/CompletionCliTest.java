package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CompletionCliTest {
  @TempDir
  Path dir;

  @Test
  void bashScriptNamesEveryVerbParsesAndCompletesAVerbAndAFlag() throws Exception {
    CliRun run = CliRun.run(dir, "completion", "bash");
    assertThat(run.exitCode()).isZero();
    CommandLine root = Main.commandLine(new CliContext(Map.of(), dir, dir.resolve("home")));
    assertThat(root.getSubcommands().keySet()).hasSizeGreaterThan(15);
    for (var verb : root.getSubcommands().entrySet()) {
      if (verb.getValue().getCommandSpec().usageMessage().hidden()) {
        continue; // internal verbs (__train-archive) are not offered
      }
      assertThat(run.out()).as(verb.getKey()).contains(verb.getKey());
    }
    assertThat(run.out()).doesNotContain("__train-archive");
    Path script = dir.resolve("resurfacer.bash");
    Files.writeString(script, run.out());

    assertThat(bash("bash", "-n", script.toString()).exitCode).as("bash -n").isZero();
    assertThat(complete(script, "resurfacer", "comp")).contains("compact").contains("completion");
    assertThat(complete(script, "resurfacer", "compact", "--stra")).contains("--strategy");
    assertThat(complete(script, "resurfacer", "demo", "que")).contains("query");
  }

  @Test
  void zshGetsTheSameScriptWhichLoadsBashcompinitItself() {
    CliRun zsh = CliRun.run(dir, "completion", "zsh");
    assertThat(zsh.exitCode()).isZero();
    assertThat(zsh.out())
        .isEqualTo(CliRun.run(dir, "completion", "bash").out())
        .contains("bashcompinit");
    assertThat(CliRun.run(dir, "completion", "fish").exitCode()).isEqualTo(Main.USAGE);
  }

  @Test
  void aTableArgumentCompletesFromTheConfiguredCatalog() throws Exception {
    assertThat(CliRun.run(dir, "demo", "reset").exitCode()).isZero();
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          demo:
            type: jdbc
            uri: jdbc:sqlite:%s
            warehouse: %s
        """.formatted(
            dir.resolve("resurfacer-demo/catalog.db"), dir.resolve("resurfacer-demo/warehouse")));
    Path script = dir.resolve("resurfacer.bash");
    Files.writeString(script, CliRun.run(dir, "completion", "bash").out());
    // the command a user has on PATH: the real CLI in its own JVM
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path launcher = bin.resolve("resurfacer");
    Files.writeString(
        launcher,
        "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' "
            + Main.class.getName() + " \"$@\"\n");
    assertThat(launcher.toFile().setExecutable(true)).isTrue();

    String program =
        "cd '" + dir + "' && PATH='" + bin + "':$PATH && source '" + script + "' 2>/dev/null; "
            + "COMP_WORDS=(resurfacer describe sh); COMP_CWORD=2; COMP_LINE='resurfacer describe sh'; COMP_POINT=${#COMP_LINE}; "
            + "_complete_resurfacer_tables 2>/dev/null; echo \"${COMPREPLY[@]}\"";
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", program).redirectErrorStream(true);
    pb.environment().put("CLASSPATH", System.getProperty("java.class.path"));
    Process p = pb.start();
    String offered = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isZero();
    assertThat(offered.trim()).isEqualTo("shop.orders");
    // a flag still completes as before through the wrapper
    assertThat(complete(script, "resurfacer", "describe", "--out")).contains("--output");
  }

  /** What bash's completion function offers for the last word, as a shell would call it. */
  private String complete(Path script, String... words) throws Exception {
    String line = String.join(" ", words);
    String program = "source '" + script + "' 2>/dev/null; COMP_WORDS=(" + line + "); COMP_CWORD="
        + (words.length - 1) + "; COMP_LINE='" + line
        + "'; COMP_POINT=${#COMP_LINE}; _complete_resurfacer 2>/dev/null; echo \"${COMPREPLY[@]}\"";
    Result r = bash("bash", "-c", program);
    assertThat(r.exitCode).as(r.output).isZero();
    return r.output;
  }

  private record Result(int exitCode, String output) {}

  private Result bash(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(p.waitFor(), output);
  }
}
