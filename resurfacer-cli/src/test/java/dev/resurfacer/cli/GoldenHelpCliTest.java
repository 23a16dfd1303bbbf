package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.table.DeltaTables;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI's help of every verb and its exit codes (ok, failed, usage, refused), pinned by golden files (see {@link Golden}). */
class GoldenHelpCliTest {
  @TempDir
  Path dir;

  @Test
  void helpOfEveryVerb() {
    CommandLine root = Main.commandLine(new CliContext(Map.of(), dir, dir.resolve("home")));
    List<String> names =
        verbs(root).map(v -> v.getCommandSpec().qualifiedName(" ")).distinct().toList();
    assertThat(names).hasSizeGreaterThan(15);
    StringBuilder index = new StringBuilder();
    for (String name : names) {
      List<String> args =
          new ArrayList<>(List.of(name.split(" ")).subList(1, name.split(" ").length));
      args.add("--help");
      CliRun help = CliRun.run(dir, args.toArray(String[]::new));
      assertThat(help.exitCode()).as(name).isZero();
      String file = "help/" + name.replace(' ', '_') + ".txt";
      index.append(name).append('\n');
      Golden.assertText(file, Golden.normaliseText(help.out(), dir) + help.err());
    }
    Golden.assertText("help/verbs.txt", index.toString());
  }

  @Test
  void exitCodes() throws Exception {
    Path delta = dir.resolve("events");
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    TableManager.buildCreateTableTransaction(
            delta.toUri().toString(), new StructType().add("id", LongType.LONG), "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    StringBuilder out = new StringBuilder();
    record Case(String what, int expected, String... args) {}
    List<Case> cases = List.of(
        new Case("ok", Main.OK, "describe", delta.toString()),
        new Case("ok: help", Main.OK, "--help"),
        new Case("ok: version", Main.OK, "--version"),
        new Case("usage: unknown option", Main.USAGE, "describe", "a.b", "--frobnicate"),
        new Case("usage: bad table name", Main.USAGE, "describe", "justatable"),
        new Case("usage: unknown verb", Main.USAGE, "frobnicate"),
        new Case("usage: missing table", Main.USAGE, "describe", "nope.missing"),
        new Case("usage: bad value", Main.USAGE, "vacuum", delta.toString(), "--retention", "soon"),
        new Case(
            "refused: retention below the table's",
            Main.REFUSED,
            "vacuum",
            delta.toString(),
            "--retention",
            "1d",
            "--yes"));
    for (Case c : cases) {
      CliRun r = CliRun.run(dir, c.args());
      assertThat(r.exitCode()).as(c.what() + ": " + r.err()).isEqualTo(c.expected());
      String firstErr = r.err().lines().findFirst().orElse("");
      out.append(c.what())
          .append(": resurfacer ")
          .append(Golden.normaliseText(String.join(" ", c.args()), dir))
          .append("\n  exit ")
          .append(r.exitCode())
          .append(firstErr.isEmpty() ? "" : "\n  " + Golden.normaliseText(firstErr, dir))
          .append('\n');
    }
    Golden.assertText(
        "exit-codes.txt",
        out.toString().replaceAll("resurfacer \\d+\\.\\d+\\.\\d+\\S*", "resurfacer <version>"));
  }

  private static Stream<CommandLine> verbs(CommandLine cl) {
    return Stream.concat(
        Stream.of(cl),
        cl.getSubcommands().values().stream().distinct().flatMap(GoldenHelpCliTest::verbs));
  }
}
