package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** Walks the real command model: every verb, nested ones included, must answer --help with what a new user needs. */
class HelpCliTest {
  @TempDir
  Path dir;

  @Test
  void everyVerbHasHelpWithDescribedOptionsDefaultsExamplesAndExitCodes() {
    CommandLine root = Main.commandLine(new CliContext(Map.of(), dir, dir.resolve("home")));
    List<String> problems = new ArrayList<>();
    List<CommandLine> verbs = verbs(root).toList();
    assertThat(verbs).hasSizeGreaterThan(15);
    String rootFooter = String.join("\n", root.getCommandSpec().usageMessage().footer());
    for (CommandLine verb : verbs) {
      CommandSpec spec = verb.getCommandSpec();
      String name = spec.qualifiedName(" ");
      List<String> args =
          new ArrayList<>(List.of(name.split(" ")).subList(1, name.split(" ").length));
      args.add("--help");
      CliRun help = CliRun.run(dir, args.toArray(String[]::new));
      if (help.exitCode() != 0) {
        problems.add(name + " --help exits " + help.exitCode() + ": " + help.err());
      }
      if (spec.usageMessage().description().length == 0) {
        problems.add(name + " has no description");
      }
      if (spec != root.getCommandSpec()
          && !(verb.getCommand() instanceof CommandLine.HelpCommand)
          && String.join("\n", spec.usageMessage().footer()).equals(rootFooter)) {
        problems.add(name + " has no examples of its own");
      }
      if (!help.out().contains("Examples:") || !help.out().contains(name)) {
        problems.add(name + " --help shows no examples of itself");
      }
      if (!help.out().contains("Exit codes:") || !help.out().contains("a safety fence refused")) {
        problems.add(name + " --help shows no exit codes");
      }
      for (OptionSpec o : spec.options()) {
        String description = String.join(" ", o.description());
        if (description.isBlank()) {
          problems.add(name + " " + o.longestName() + " has no description");
        }
        boolean valued = !o.isMultiValue() && o.arity().max() > 0;
        if (valued && o.defaultValue() == null && o.initialValue() != null) {
          problems.add(name + " " + o.longestName() + " has an initial value " + o.initialValue()
              + " but no defaultValue to show");
        }
        // description() is already interpolated: ${DEFAULT-VALUE} has become the code's own default
        // here.
        if (valued && o.defaultValue() != null && !description.contains(o.defaultValue())) {
          problems.add(
              name + " " + o.longestName() + " does not show its default " + o.defaultValue());
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void helpVerbAndVersionWorkOnEveryLevel() {
    CliRun help = CliRun.run(dir, "help", "compact");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("Usage: resurfacer compact").contains("Examples:");
    CliRun nested = CliRun.run(dir, "demo", "query", "-h");
    assertThat(nested.exitCode()).isZero();
    assertThat(nested.out()).contains("Usage: resurfacer demo query");
    CliRun withTable = CliRun.run(dir, "compact", "shop.orders", "--help");
    assertThat(withTable.exitCode()).isZero();
    assertThat(withTable.out()).contains("Usage: resurfacer compact");
    CliRun version = CliRun.run(dir, "expire", "--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.out()).contains("resurfacer ");
  }

  private static Stream<CommandLine> verbs(CommandLine cl) {
    return Stream.concat(
        Stream.of(cl),
        cl.getSubcommands().values().stream().distinct().flatMap(HelpCliTest::verbs));
  }
}
