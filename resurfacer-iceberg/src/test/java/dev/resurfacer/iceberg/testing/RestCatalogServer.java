package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Iceberg's own REST catalog server ({@code org.apache.iceberg.rest.RESTCatalogServer}) as a child
 * JVM on a free loopback port, backed by a JDBC catalog on a SQLite file, its warehouse on an
 * {@link S3Server}. It runs on the classpath resolved at build time by the
 * {@code resurfacer-rest-fixture} module (Iceberg 1.11, Jetty 12), so its Iceberg never mixes with
 * ours and nothing is downloaded while tests run. The server issues OAuth2 client-credentials
 * tokens at {@code v1/oauth/tokens} but does not check them on later requests.
 */
public final class RestCatalogServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  private final S3Server s3;
  private final String warehousePrefix;
  private Path dir;
  private Process process;
  private int port;

  public RestCatalogServer(S3Server s3, String warehousePrefix) {
    this.s3 = s3;
    this.warehousePrefix = warehousePrefix;
  }

  public RestCatalogServer start() {
    if (process != null) {
      return this;
    }
    s3.start();
    try {
      dir = Files.createTempDirectory("rest-catalog");
      port = ChildJvms.freePort();
      Map<String, String> catalog = new LinkedHashMap<>();
      catalog.put("rest.port", String.valueOf(port));
      catalog.put("catalog.name", "rest_backend");
      catalog.put("uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
      catalog.put("warehouse", warehouse());
      catalog.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
      catalog.putAll(s3.clientProperties());
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder pb = new ProcessBuilder(List.of(
          java,
          "-Xmx256m",
          "-XX:TieredStopAtLevel=1",
          "-Daws.requestChecksumCalculation=WHEN_REQUIRED",
          "-Daws.responseChecksumValidation=WHEN_REQUIRED",
          "-cp",
          ChildJvms.classpath("rest-server.classpath", "resurfacer-rest-fixture"),
          "org.apache.iceberg.rest.RESTCatalogServer"));
      catalog.forEach((k, v) -> pb.environment().put(environmentName(k), v));
      pb.redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile());
      process = pb.start();
      awaitReady();
      return this;
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(e);
    }
  }

  /** The server reads its catalog from CATALOG_* variables: "_" stands for ".", "__" for "-". */
  static String environmentName(String property) {
    return "CATALOG_" + property.replace("-", "__").replace(".", "_").toUpperCase(Locale.ROOT);
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "REST catalog server exited with " + process.exitValue() + ":\n" + log());
      }
      try {
        HttpURLConnection c =
            (HttpURLConnection) URI.create(uri() + "v1/config").toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        if (c.getResponseCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // the server is still starting
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("REST catalog server did not answer within 90s:\n" + log());
  }

  public String log() {
    return ChildProcesses.log(dir.resolve("server.log"));
  }

  @Override
  public void close() {
    ChildProcesses.stop(process, 10);
    process = null;
  }

  @Override
  public void beforeAll(ExtensionContext ctx) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext ctx) {
    close();
  }

  public String uri() {
    return "http://127.0.0.1:" + port + "/";
  }

  public String warehouse() {
    return s3.warehouse(warehousePrefix);
  }

  /**
   * What a client sets to use this catalog: the endpoint, OAuth2 client credentials (exchanged
   * for a token at startup), and the S3 settings — this server does not vend credentials.
   */
  public Map<String, String> clientProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("rest.auth.type", "oauth2");
    p.put("credential", "resurfacer:client-secret");
    p.put("oauth2-server-uri", uri() + "v1/oauth/tokens");
    p.put("scope", "catalog");
    p.putAll(s3.clientProperties());
    return p;
  }
}
