package dev.resurfacer.cli;

import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every verb on one table shares: the catalog and output flags and one way to print a result, so that
 * {@code --output json} means the same thing on every verb. The TABLE argument stays with each verb: its
 * wording differs by format.
 */
abstract class TableCommand implements Callable<Integer> {
  final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  OutputOptions outputOptions;

  TableCommand(CliContext ctx) {
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

  /**
   * {@code operation} on the named table on the local engine ({@link Dispatcher#local}), previewed unless
   * {@code yes}, for a verb that deletes no file it has not written itself (so no fence is read): prints
   * what the table's format returns and gives the exit code it calls for.
   */
  final int runLocally(String tableName, Operation operation, boolean yes) {
    Readout readout = Dispatcher.local(
        TableLookups.readOnlyLookup(catalogOptions, ctx, tableName),
        operation,
        yes ? Mode.COMMIT : Mode.PREVIEW,
        Progress.NONE,
        0);
    print(readout.json(), out -> out.println(readout.render()));
    return readout.succeeded() ? Main.OK : Main.FAILED;
  }
}
