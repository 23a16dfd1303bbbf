package dev.resurfacer.serve;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.resurfacer.UsageException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code serve}'s one HTTP port (the JDK's own server): {@code /metrics}, {@code /healthz}, the
 * dashboard ({@code /}, {@code /runs/ID}, {@code /advice}), {@code POST /tables/pause|resume}, the layout
 * advice as JSON ({@code GET /v1/advice}) and {@code POST /v1/scan-reports}. With a token set,
 * every path but {@code /healthz} needs {@code Authorization: Bearer TOKEN} (or the cookie
 * {@code resurfacer_token}); a form post from another origin is refused.
 */
public final class ServeHttp implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;
  private final MaintenanceService service;
  private final byte[] token;
  private final ScanReportIntake intake;

  private ServeHttp(
      HttpServer server, ExecutorService executor, MaintenanceService service, String token) {
    this.intake = new ScanReportIntake(service.startedAt());
    this.server = server;
    this.executor = executor;
    this.service = service;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  /** Binds and starts; a port in use is a {@link UsageException}. */
  public static ServeHttp start(MaintenanceService service, String bind, int port, String token) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(bind, port), 0);
    } catch (BindException e) {
      throw new UsageException("cannot listen on " + bind + ":" + port + ": "
          + e.getMessage().toLowerCase(java.util.Locale.ROOT)
          + " (set serve.port or --port; 0 picks a free one)");
    } catch (IOException e) {
      throw new UsageException("cannot listen on " + bind + ":" + port + ": " + e.getMessage());
    }
    ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "resurfacer-serve-http");
      t.setDaemon(true);
      return t;
    });
    ServeHttp http = new ServeHttp(server, executor, service, token);
    server.createContext("/", http::handle);
    server.setExecutor(executor);
    server.start();
    return http;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      if (path.equals("/healthz")) {
        healthz(ex);
        return;
      }
      if (!authorized(ex)) {
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        send(
            ex,
            401,
            "text/plain; charset=utf-8",
            "a token is required (Authorization: Bearer ...)\n");
        return;
      }
      if (method.equals("GET") && path.equals("/metrics")) {
        send(ex, 200, ServeMetrics.CONTENT_TYPE, ServeMetrics.render(service));
      } else if (method.equals("GET") && path.equals("/")) {
        send(ex, 200, "text/html; charset=utf-8", Dashboard.tablesPage(service));
      } else if (method.equals("GET") && path.startsWith("/runs/")) {
        long id;
        try {
          id = Long.parseLong(path.substring("/runs/".length()));
        } catch (NumberFormatException e) {
          send(
              ex,
              404,
              "text/html; charset=utf-8",
              Dashboard.notFound("no run " + path.substring("/runs/".length())));
          return;
        }
        var run = service.history().get(id);
        if (run.isEmpty()) {
          send(ex, 404, "text/html; charset=utf-8", Dashboard.notFound("no run " + id));
        } else {
          send(ex, 200, "text/html; charset=utf-8", Dashboard.runPage(run.get()));
        }
      } else if (method.equals("POST")
          && (path.equals("/tables/pause") || path.equals("/tables/resume"))) {
        pauseOrResume(ex, path.endsWith("pause"));
      } else if (method.equals("POST") && path.equals("/v1/scan-reports")) {
        scanReports(ex);
      } else if (method.equals("GET") && (path.equals("/v1/advice") || path.equals("/advice"))) {
        advice(ex, path.equals("/v1/advice"));
      } else if (List.of(
                  "/",
                  "/metrics",
                  "/tables/pause",
                  "/tables/resume",
                  "/v1/scan-reports",
                  "/v1/advice",
                  "/advice")
              .contains(path)
          || path.startsWith("/runs/")) {
        ex.getResponseHeaders()
            .set(
                "Allow",
                path.startsWith("/tables/") || path.equals("/v1/scan-reports") ? "POST" : "GET");
        send(ex, 405, "text/plain; charset=utf-8", method + " is not allowed on " + path + "\n");
      } else {
        send(ex, 404, "text/html; charset=utf-8", Dashboard.notFound("nothing at " + path));
      }
    } catch (RuntimeException e) {
      send(
          ex,
          500,
          "text/plain; charset=utf-8",
          "error: " + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + "\n");
    }
  }

  /** A write from a page of another origin (a browser carrying the cookie) is refused: 403 sent, true returned. */
  private static boolean refusedCrossOrigin(HttpExchange ex) throws IOException {
    String origin = ex.getRequestHeaders().getFirst("Origin");
    String host = ex.getRequestHeaders().getFirst("Host");
    if (origin != null && !origin.equals("null") && (host == null || !sameHost(origin, host))) {
      send(
          ex,
          403,
          "text/plain; charset=utf-8",
          "refused: a form from another origin (" + origin + ")\n");
      return true;
    }
    return false;
  }

  private void scanReports(HttpExchange ex) throws IOException {
    if (refusedCrossOrigin(ex)) {
      return;
    }
    byte[] body = ex.getRequestBody().readNBytes(ScanReportIntake.MAX_BODY_BYTES + 1);
    if (body.length > ScanReportIntake.MAX_BODY_BYTES) {
      // read a bounded rest (not kept) so the client sees the answer rather than a reset connection
      ex.getRequestBody().skip(4L * ScanReportIntake.MAX_BODY_BYTES);
      ex.getResponseHeaders().set("Connection", "close");
      send(
          ex,
          413,
          "text/plain; charset=utf-8",
          "a scan-report post holds at most " + ScanReportIntake.MAX_BODY_BYTES
              + " bytes; nothing was written (post smaller batches)\n");
      return;
    }
    ScanReportIntake.Result r =
        intake.accept(new String(body, StandardCharsets.UTF_8), service::scanReportLocation);
    send(ex, 200, "application/json", r.json());
  }

  private void advice(HttpExchange ex, boolean json) throws IOException {
    String query = ex.getRequestURI().getRawQuery();
    String catalog = query == null ? null : Dashboard.formValue(query, "catalog");
    String table = query == null ? null : Dashboard.formValue(query, "table");
    if (catalog == null || table == null) {
      send(
          ex,
          400,
          "text/plain; charset=utf-8",
          "catalog and table are required query parameters\n");
      return;
    }
    var advice = service.advise(catalog, table);
    if (advice.isEmpty()) {
      send(
          ex,
          404,
          json ? "text/plain; charset=utf-8" : "text/html; charset=utf-8",
          json
              ? "no table " + catalog + "." + table + "\n"
              : Dashboard.notFound("no table " + catalog + "." + table));
    } else if (json) {
      send(ex, 200, "application/json", ADVICE_JSON.writeValueAsString(advice.get()) + "\n");
    } else {
      send(ex, 200, "text/html; charset=utf-8", Dashboard.advicePage(advice.get()));
    }
  }

  /** The keys of {@code advise --output json}. */
  private static final com.fasterxml.jackson.databind.ObjectMapper ADVICE_JSON =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .setPropertyNamingStrategy(
              com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE);

  private void pauseOrResume(HttpExchange ex, boolean pause) throws IOException {
    if (refusedCrossOrigin(ex)) {
      return;
    }
    String body = new String(ex.getRequestBody().readNBytes(64 * 1024), StandardCharsets.UTF_8);
    String catalog = Dashboard.formValue(body, "catalog");
    String table = Dashboard.formValue(body, "table");
    if (catalog == null || table == null) {
      send(ex, 400, "text/plain; charset=utf-8", "catalog and table are required form fields\n");
      return;
    }
    boolean known = pause ? service.pause(catalog, table) : service.resume(catalog, table);
    if (!known) {
      send(ex, 404, "text/plain; charset=utf-8", "no table " + catalog + "." + table + "\n");
      return;
    }
    ex.getResponseHeaders().set("Location", "/");
    send(
        ex,
        303,
        "text/plain; charset=utf-8",
        (pause ? "paused " : "resumed ") + catalog + "." + table + "\n");
  }

  private static boolean sameHost(String origin, String host) {
    try {
      URI o = URI.create(origin);
      String authority = o.getPort() < 0 ? o.getHost() : o.getHost() + ":" + o.getPort();
      return host.equalsIgnoreCase(authority);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void healthz(HttpExchange ex) throws IOException {
    Instant last = service.lastEvaluation();
    Duration allowed = service.settings().interval().multipliedBy(3).plusSeconds(60);
    Instant now = service.now();
    boolean fresh = last == null
        ? service.startedAt().plus(allowed).isAfter(now)
        : last.plus(allowed).isAfter(now);
    if (service.stopping()) {
      send(ex, 503, "text/plain; charset=utf-8", "stopping\n");
    } else if (fresh) {
      send(ex, 200, "text/plain; charset=utf-8", "ok\n");
    } else {
      send(ex, 503, "text/plain; charset=utf-8", "triggers last evaluated at " + last + "\n");
    }
  }

  private boolean authorized(HttpExchange ex) {
    if (token == null) {
      return true;
    }
    String header = ex.getRequestHeaders().getFirst("Authorization");
    if (header != null
        && header.startsWith("Bearer ")
        && matches(header.substring(7).trim())) {
      return true;
    }
    String cookies = ex.getRequestHeaders().getFirst("Cookie");
    if (cookies != null) {
      for (String c : cookies.split(";")) {
        String kv = c.trim();
        if (kv.startsWith("resurfacer_token=")
            && matches(kv.substring("resurfacer_token=".length()))) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean matches(String presented) {
    return MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
