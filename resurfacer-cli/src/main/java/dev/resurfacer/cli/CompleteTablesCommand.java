package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.formats.Formats;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The table names the completion script offers: those of the catalog a verb would use without
 * flags (resurfacer.yml's default, else the embedded one), one per line. Prints nothing and exits 0
 * on any error: a completion must never show one. It creates nothing: a SQLite catalog file that does
 * not exist is not opened.
 */
@Command(
    name = "__complete-tables",
    hidden = true,
    footer = {
      "%nExamples:",
      "  resurfacer __complete-tables             # what <TAB> after 'resurfacer describe' offers"
    },
    description =
        "For shell completion: the tables of the default catalog, one per line (nothing on error).")
final class CompleteTablesCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  CompleteTablesCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try {
      CatalogConfig config = new CatalogSelection(null, null, null, null, null)
          .resolve(ctx.env(), ctx.workingDir(), ctx.home());
      if (!existsIfSqlite(config.uri())) {
        return Main.OK;
      }
      try (var r = Formats.connect(config, ctx.workingDir())) {
        r.tables().forEach(out::println);
      }
    } catch (Exception | LinkageError e) {
      // nothing: the shell offers no table names
    }
    out.flush();
    return Main.OK;
  }

  private boolean existsIfSqlite(String uri) {
    if (uri == null || !uri.startsWith("jdbc:sqlite:")) {
      return true;
    }
    Path db = ctx.workingDir().resolve(uri.substring("jdbc:sqlite:".length()));
    return Files.isRegularFile(db);
  }
}
