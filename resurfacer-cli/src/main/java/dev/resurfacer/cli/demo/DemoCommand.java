package dev.resurfacer.cli.demo;

import dev.resurfacer.cli.CliContext;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.demo.ShopDemo;
import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.units.ByteSizes;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    footer = {
      "%nExamples:",
      "  resurfacer demo                    # the whole story, five days",
      "  resurfacer demo --days 2 --dir /tmp/demo",
      "  resurfacer demo maintain           # just the maintenance step"
    },
    description = {
      "The whole story on a demo table of our own (catalog under ./resurfacer-demo/):",
      "five days of streaming ingestion, describe, query, maintain, describe, query."
    },
    subcommands = {
      DemoCommand.Reset.class,
      DemoCommand.NextDay.class,
      DemoCommand.Query.class,
      DemoCommand.Maintain.class
    })
public final class DemoCommand implements Callable<Integer> {
  static final int STORY_DAYS = 5;

  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Where the demo catalog lives (default ${DEFAULT-VALUE}).",
      defaultValue = "resurfacer-demo")
  String dir;

  @Option(
      names = "--seed",
      description = "Seed for the generated data (default ${DEFAULT-VALUE}).",
      defaultValue = "42")
  long seed;

  @Option(
      names = "--days",
      description = "Days of ingestion in the full story (default ${DEFAULT-VALUE}).",
      defaultValue = "" + STORY_DAYS)
  int days;

  public DemoCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  CatalogConfig catalogConfig() {
    return CatalogSelection.embedded("demo", ctx.workingDir().resolve(dir));
  }

  <T> T withDemo(java.util.function.Function<ShopDemo, T> body) throws Exception {
    Catalog catalog = Catalogs.open(catalogConfig());
    try {
      return body.apply(new ShopDemo(catalog, seed));
    } finally {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = out();
    return withDemo(demo -> {
      out.println("== resetting the demo table " + ShopDemo.ORDERS + " in " + dir + "/");
      demo.reset();
      for (int i = 0; i < days; i++) {
        printDay(out, demo.nextDay());
      }
      out.println();
      Look before = look(out, demo, "before");
      out.println();
      out.println("== maintenance");
      DemoMaintenance.run(demo, out);
      out.println();
      Look after = look(out, demo, "after");
      boolean same = before.answers().equals(after.answers());
      out.println();
      out.printf(
          Locale.ROOT,
          "answers %s; data files %d -> %d, delete files %d -> %d%n",
          same ? "identical" : "DIFFER",
          before.health().data().dataFiles(),
          after.health().data().dataFiles(),
          before.health().deletes().deleteFiles(),
          after.health().deletes().deleteFiles());
      out.flush();
      return same ? 0 : 1;
    });
  }

  /** The table's health and the queries' answers at one point of the story. */
  private record Look(TableHealth health, List<List<String>> answers) {}

  private static Look look(PrintWriter out, ShopDemo demo, String when) {
    out.println("== " + when + " maintenance");
    TableHealth health = HealthInspector.inspect(ShopDemo.ORDERS.toString(), demo.table());
    printHealth(out, health);
    List<ShopDemo.QueryResult> results = demo.query();
    printQueries(out, results);
    return new Look(health, results.stream().map(ShopDemo.QueryResult::answer).toList());
  }

  static void printDay(PrintWriter out, ShopDemo.DayReport d) {
    out.printf(
        Locale.ROOT,
        "day %d (%s): %d appends of %d rows, %d rows updated via %d position-delete files, "
            + "%d orders cancelled via %d equality-delete files, %d commits%n",
        d.day(),
        d.date(),
        d.appends(),
        d.rowsAppended() / d.appends(),
        d.rowsUpdated(),
        d.positionDeleteFiles(),
        d.rowsCancelled(),
        d.equalityDeleteFiles(),
        d.commits());
    out.flush();
  }

  static void printHealth(PrintWriter out, TableHealth h) {
    out.printf(
        Locale.ROOT,
        "%d snapshots; %d data files (%s, %d small); %d delete files (%d position, %d equality, %d DVs); "
            + "%d manifests; %d metadata.json files%n",
        h.history().snapshots(),
        h.data().dataFiles(),
        ByteSizes.format(h.data().dataBytes()),
        h.data().smallDataFiles(),
        h.deletes().deleteFiles(),
        h.deletes().positionDeleteFiles(),
        h.deletes().equalityDeleteFiles(),
        h.deletes().deletionVectors(),
        h.manifests().manifests(),
        h.metadata().metadataFilesOnDisk());
    out.flush();
  }

  static void printQueries(PrintWriter out, List<ShopDemo.QueryResult> results) {
    for (ShopDemo.QueryResult r : results) {
      out.printf(
          Locale.ROOT,
          "  %s  [read %d data + %d delete files]%n",
          r.question(),
          r.dataFilesRead(),
          r.deleteFilesRead());
      for (String line : r.answer()) {
        out.println("      " + line);
      }
    }
    out.flush();
  }

  /** A subcommand that does one thing to the demo table, on the parent's catalog and seed. */
  abstract static class DemoStep implements Callable<Integer> {
    @ParentCommand
    DemoCommand parent;

    abstract void run(ShopDemo demo, PrintWriter out);

    @Override
    public final Integer call() throws Exception {
      return parent.withDemo(demo -> {
        run(demo, parent.out());
        return 0;
      });
    }
  }

  @Command(
      name = "reset",
      footer = {"%nExamples:", "  resurfacer demo reset", "  resurfacer demo --dir /tmp/demo reset"
      },
      description = "Drop and recreate the empty demo table.")
  static final class Reset extends DemoStep {
    @Override
    void run(ShopDemo demo, PrintWriter out) {
      demo.reset();
      out.println("demo table " + ShopDemo.ORDERS + " reset in " + parent.dir + "/");
      out.flush();
    }
  }

  @Command(
      name = "next-day",
      footer = {"%nExamples:", "  resurfacer demo next-day", "  resurfacer demo --seed 7 next-day"},
      description =
          "Ingest one more day: many small appends, updates as position deletes, cancellations as equality deletes.")
  static final class NextDay extends DemoStep {
    @Override
    void run(ShopDemo demo, PrintWriter out) {
      printDay(out, demo.nextDay());
    }
  }

  @Command(
      name = "query",
      footer = {"%nExamples:", "  resurfacer demo query"},
      description = "Run the demo's analytic queries and show how many files each read.")
  static final class Query extends DemoStep {
    @Override
    void run(ShopDemo demo, PrintWriter out) {
      printQueries(out, demo.query());
    }
  }

  @Command(
      name = "maintain",
      footer = {
        "%nExamples:",
        "  resurfacer demo maintain",
        "  resurfacer demo --dir /tmp/demo maintain"
      },
      description = "Run the maintenance this build can do on the demo table.")
  static final class Maintain extends DemoStep {
    @Override
    void run(ShopDemo demo, PrintWriter out) {
      DemoMaintenance.run(demo, out);
    }
  }
}
