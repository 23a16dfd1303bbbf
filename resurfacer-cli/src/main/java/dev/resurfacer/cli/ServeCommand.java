package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.formats.Formats;
import dev.resurfacer.policy.Policies;
import dev.resurfacer.serve.MaintenanceService;
import dev.resurfacer.serve.RunHistory;
import dev.resurfacer.serve.ServeHttp;
import dev.resurfacer.serve.ServeSettings;
import dev.resurfacer.serve.ServedCatalog;
import dev.resurfacer.storage.StorageFences;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    footer = {
      "%nExamples:",
      "  resurfacer serve                          # watch: evaluate triggers, run nothing",
      "  resurfacer serve --yes                    # maintain tables whose triggers fire",
      "  resurfacer serve --yes --port 0           # any free port (printed on start)"
    },
    description = {
      "Keep every table of the configured catalog(s) healthy continuously: evaluate each table's triggers",
      "(resurfacer.yml triggers:) from metadata on an interval and run its policy when one fires; keep a run",
      "history; serve /metrics, /healthz and a dashboard on one port (serve: section; loopback by default).",
      "Without --yes it only watches. SIGTERM lets running work finish its commits. See docs/serve.md."
    })
final class ServeCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec
  CommandSpec spec;

  @Mixin
  CatalogOptions catalogOptions;

  @Mixin
  ActOptions act;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "Address to listen on (default serve.bind, else 127.0.0.1).")
  String bind;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port to listen on; 0 picks a free one (default serve.port, else 8650).")
  Integer port;

  @Option(
      names = "--history",
      paramLabel = "FILE|URL",
      description = "Run history: a SQLite file or a jdbc:postgresql: URL (default serve.history).")
  String history;

  ServeCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    if (port != null && (port < 0 || port > 65535)) {
      throw new UsageException("--port must be from 0 to 65535 (got " + port + ")");
    }
    Secrets secrets = new Secrets(ctx.env());
    ResurfacerConfig config = catalogOptions.config(ctx);
    ServeSettings settings = config.serve().withListen(bind, port);
    if (history != null) {
      settings = settings.withHistory(history);
    }
    String token = settings.token(secrets);
    Policies policies = config.policies();
    List<CatalogConfig> catalogs = catalogs(config);
    // serve runs for days: each orphan removal reads every catalog's tables afresh
    StorageFences fences = catalogOptions.fencesOfRun(ctx, config, catalogs).rereadEachRun();

    List<ServedCatalog<?>> served = new ArrayList<>();
    int tables = 0;
    for (CatalogConfig c : catalogs) {
      ServedCatalog<?> catalog = ServedCatalog.of(
          Formats.connect(c, ctx.workingDir()).fences(fences).leaseDuration(settings.lease()));
      served.add(catalog);
      // a policy no table can follow is a configuration error: found now, not at the first trigger
      for (String table : catalog.tables()) {
        policies.effective(table);
        policies.triggers(table);
        tables++;
      }
    }
    String location = settings.history().startsWith("jdbc:")
        ? settings.history()
        : ctx.workingDir().resolve(settings.history()).toString();
    RunHistory runs =
        RunHistory.open(location, settings.historyUser(), settings.historyPassword(secrets));
    MaintenanceService service =
        new MaintenanceService(served, policies, settings, runs, Clock.systemUTC(), act.yes);
    ServeHttp http;
    try {
      http = ServeHttp.start(service, settings.bind(), settings.port(), token);
    } catch (RuntimeException e) {
      served.forEach(ServedCatalog::close);
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    ServeSettings finalSettings = settings;
    AtomicBoolean stopping = new AtomicBoolean();
    Runnable stop = () -> {
      if (stopping.compareAndSet(false, true)) {
        service.stop(finalSettings.shutdownGrace());
        http.close();
        served.forEach(ServedCatalog::close);
        stopped.countDown();
      }
    };
    // SIGTERM/SIGINT are taken before the JVM starts shutting down: its shutdown hooks (Iceberg's
    // worker pool is one) would stop the pools a running commit needs while the grace period runs.
    // Running work finishes first; then this command returns the signal's status and the JVM exits.
    // A second signal changes nothing: the first one's stop is still waiting for the work.
    AtomicInteger signalled = new AtomicInteger(Main.OK);
    for (String name : List.of("TERM", "INT")) {
      int status = name.equals("TERM") ? 143 : 130;
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
          if (signalled.compareAndSet(Main.OK, status)) {
            new Thread(stop, "resurfacer-serve-" + name.toLowerCase(java.util.Locale.ROOT)).start();
          }
        });
      } catch (IllegalArgumentException unsupported) {
        // a platform without this signal: the shutdown hook below still stops the service
      }
    }
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "resurfacer-serve-stop"));
    service.start();
    PrintWriter out = spec.commandLine().getOut();
    String host = settings.bind().contains(":") ? "[" + settings.bind() + "]" : settings.bind();
    out.println("resurfacer serve: " + tables + " table(s) in " + catalogs.size() + " catalog(s), "
        + (act.yes
            ? "maintaining tables whose triggers fire"
            : "watching only (no --yes): fired triggers run nothing")
        + "; history " + (location.startsWith("jdbc:") ? "in the configured database" : location));
    out.println("listening on http://" + host + ":" + http.port() + "/"
        + (token == null ? "" : " (token required)"));
    out.flush();
    stopped.await();
    return signalled.get();
  }

  /** --catalog names one; otherwise every catalog of the file (Iceberg and Delta), or the ad-hoc or embedded one. */
  private List<CatalogConfig> catalogs(ResurfacerConfig config) {
    if (catalogOptions.catalogUri != null
        || catalogOptions.catalog != null
        || config.catalogs().isEmpty()) {
      return List.of(catalogOptions.resolve(ctx));
    }
    List<CatalogConfig> all = new ArrayList<>(config.catalogs().values());
    if (catalogOptions.warehouse != null) {
      all.replaceAll(c -> c.withWarehouseFlag(catalogOptions.warehouse));
    }
    return all;
  }
}
