package dev.resurfacer.cli;

import dev.resurfacer.report.Readout;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every verb on a configured catalog's tables shares: the catalog and output flags and one way to print
 * a result, so that {@code --output json} means the same thing on every verb.
 */
abstract class CatalogCommand implements Callable<Integer> {
  final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  OutputOptions outputOptions;

  CatalogCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  /** Prints {@code result} as JSON under {@code --output json}, else what {@code text} writes. */
  final void print(Object result, Consumer<PrintWriter> text) {
    PrintWriter out = spec.commandLine().getOut();
    if (outputOptions.json()) {
      out.println(Json.write(result));
    } else {
      text.accept(out);
    }
    out.flush();
  }

  /** Prints {@code readout}: its JSON under {@code --output json}, else its text. */
  final void print(Readout readout) {
    print(readout.json(), out -> out.println(readout.render()));
  }
}
