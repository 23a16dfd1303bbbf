package dev.resurfacer.delta.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault-free half of S3's conditional writes that s3proxy 2.6.0 lacks: an HTTP front on loopback
 * that forwards every request to s3proxy unchanged, except that a PUT carrying
 * {@code If-None-Match: *} is answered 412 PreconditionFailed when the key exists — checked and
 * forwarded under one lock per key, as S3 serializes conditional writes. It stands in for a store
 * that honours the header, so two real Kernel committers can race on it; it counts the 412s it gave.
 * The backend runs without authentication (the front does not re-sign).
 *
 * <p>It can also inject one fault into the conditional PUT of a chosen key ({@link #inject}): the
 * write lands but its reply is lost, or it never lands. Everything else is forwarded as is.
 */
public final class ConditionalPutFront implements AutoCloseable {
  private static final Set<String> HOP =
      Set.of("host", "content-length", "connection", "expect", "transfer-encoding", "upgrade");

  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final URI backend;
  private final Map<String, Object> locks = new ConcurrentHashMap<>();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile String faultyKey;
  private volatile Fault fault;
  private final AtomicInteger faults = new AtomicInteger();

  /** A fault in the conditional PUT of one key, as a store or network may produce it. */
  public enum Fault {
    /** The first PUT is stored, then answered 500 as if its reply were lost; later requests see the stored object. */
    LOSE_REPLY_AFTER_WRITING,
    /**
     * Every PUT is refused (403, which the S3 client does not retry) and nothing is stored. Kernel
     * retries a failed log write 200 times; a 500 here would cost four client attempts each.
     */
    NEVER_WRITE
  }

  public ConditionalPutFront(String backendEndpoint) throws IOException {
    this.backend = URI.create(backendEndpoint);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.createContext("/", this::handle);
    server.start();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Conditional PUTs answered 412. */
  public int refusedPuts() {
    return refused.get();
  }

  /** From now on, {@code fault} hits conditional PUTs of the key whose path ends with {@code keySuffix}. */
  public void inject(String keySuffix, Fault fault) {
    this.fault = fault;
    this.faultyKey = keySuffix;
  }

  /** Requests the injected fault answered. */
  public int faults() {
    return faults.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      String path = ex.getRequestURI().getRawPath();
      boolean conditional = ex.getRequestMethod().equals("PUT")
          && "*".equals(ex.getRequestHeaders().getFirst("If-None-Match"));
      if (!conditional) {
        forward(ex, body);
        return;
      }
      synchronized (locks.computeIfAbsent(path, k -> new Object())) {
        String key = faultyKey;
        if (key != null && path.endsWith(key)) {
          faults.incrementAndGet();
          if (fault == Fault.NEVER_WRITE) {
            error(ex, 403, "AccessDenied", "Access Denied");
            return;
          }
          faultyKey = null;
          send(ex, body);
          error(ex, 500, "InternalError", "We encountered an internal error. Please try again.");
          return;
        }
        HttpResponse<Void> head = client.send(
            HttpRequest.newBuilder(backend.resolve(path))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding());
        if (head.statusCode() == 200) {
          refused.incrementAndGet();
          error(
              ex,
              412,
              "PreconditionFailed",
              "At least one of the pre-conditions you specified did not hold");
          return;
        }
        forward(ex, body);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static void error(HttpExchange ex, int status, String code, String message)
      throws IOException {
    byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code
            + "</Code><Message>" + message + "</Message></Error>")
        .getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/xml");
    ex.sendResponseHeaders(status, xml.length);
    ex.getResponseBody().write(xml);
  }

  private void forward(HttpExchange ex, byte[] body) throws IOException, InterruptedException {
    HttpResponse<byte[]> res = send(ex, body);
    res.headers().map().forEach((k, vs) -> {
      if (!HOP.contains(k.toLowerCase(Locale.ROOT)) && !k.equals(":status")) {
        vs.forEach(v -> ex.getResponseHeaders().add(k, v));
      }
    });
    if (ex.getRequestMethod().equals("HEAD")) {
      res.headers()
          .firstValue("content-length")
          .ifPresent(v -> ex.getResponseHeaders().add("Content-Length", v));
    }
    byte[] out = res.body();
    boolean noBody = ex.getRequestMethod().equals("HEAD") || out.length == 0;
    ex.sendResponseHeaders(res.statusCode(), noBody ? -1 : out.length);
    if (!noBody) {
      try (OutputStream o = ex.getResponseBody()) {
        o.write(out);
      }
    }
  }

  /** The request passed to the backend unchanged; its answer, not yet given to the client. */
  private HttpResponse<byte[]> send(HttpExchange ex, byte[] body)
      throws IOException, InterruptedException {
    String query = ex.getRequestURI().getRawQuery();
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(
            backend + ex.getRequestURI().getRawPath() + (query == null ? "" : "?" + query)))
        .method(
            ex.getRequestMethod(),
            body.length == 0
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
      if (!HOP.contains(h.getKey().toLowerCase(Locale.ROOT))
          && !h.getKey().equalsIgnoreCase("If-None-Match")) {
        h.getValue().forEach(v -> req.header(h.getKey(), v));
      }
    }
    return client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
