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
 */
public final class ConditionalPutFront implements AutoCloseable {
  private static final Set<String> HOP = Set.of("host", "content-length", "connection", "expect", "transfer-encoding", "upgrade");

  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final URI backend;
  private final Map<String, Object> locks = new ConcurrentHashMap<>();
  private final AtomicInteger refused = new AtomicInteger();

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

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      String path = ex.getRequestURI().getRawPath();
      boolean conditional = ex.getRequestMethod().equals("PUT") && "*".equals(ex.getRequestHeaders().getFirst("If-None-Match"));
      if (!conditional) {
        forward(ex, body);
        return;
      }
      synchronized (locks.computeIfAbsent(path, k -> new Object())) {
        HttpResponse<Void> head = client.send(HttpRequest.newBuilder(backend.resolve(path)).method("HEAD", HttpRequest.BodyPublishers.noBody())
            .build(), HttpResponse.BodyHandlers.discarding());
        if (head.statusCode() == 200) {
          refused.incrementAndGet();
          byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>PreconditionFailed</Code>"
              + "<Message>At least one of the pre-conditions you specified did not hold</Message></Error>").getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/xml");
          ex.sendResponseHeaders(412, xml.length);
          ex.getResponseBody().write(xml);
          return;
        }
        forward(ex, body);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private void forward(HttpExchange ex, byte[] body) throws IOException, InterruptedException {
    String query = ex.getRequestURI().getRawQuery();
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(backend + ex.getRequestURI().getRawPath() + (query == null ? "" : "?" + query)))
        .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
      if (!HOP.contains(h.getKey().toLowerCase(Locale.ROOT)) && !h.getKey().equalsIgnoreCase("If-None-Match")) {
        h.getValue().forEach(v -> req.header(h.getKey(), v));
      }
    }
    HttpResponse<byte[]> res = client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    res.headers().map().forEach((k, vs) -> {
      if (!HOP.contains(k.toLowerCase(Locale.ROOT)) && !k.equals(":status")) {
        vs.forEach(v -> ex.getResponseHeaders().add(k, v));
      }
    });
    if (ex.getRequestMethod().equals("HEAD")) {
      res.headers().firstValue("content-length").ifPresent(v -> ex.getResponseHeaders().add("Content-Length", v));
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

  @Override
  public void close() {
    server.stop(0);
  }
}
