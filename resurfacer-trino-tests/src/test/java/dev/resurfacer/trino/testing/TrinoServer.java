package dev.resurfacer.trino.testing;

import static dev.resurfacer.iceberg.testing.ChildProcesses.deleteTree;

import dev.resurfacer.iceberg.testing.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Trino server as a child process on a free loopback port: the {@code trino-server} tarball
 * that Maven resolved (path in {@code trino.server.tarball}) is unpacked once under
 * {@code trino.server.home} with only the plugins the tests use, and started on a JDK 25 with a
 * small heap and the configuration and catalogs this fixture writes.
 *
 * <p>The tarball stores repeated jars as hard links to a first copy that may sit in another
 * plugin's folder, so it is unpacked whole with {@code tar} (which keeps the links) and the unused
 * plugins are deleted afterwards; unpacking only some folders, or with Maven's unpacker, leaves
 * empty jars.
 */
public final class TrinoServer implements AutoCloseable {
  /** Plugins the tests load; every other plugin folder is removed after unpacking (startup time). */
  static final Set<String> PLUGINS = Set.of("iceberg", "delta-lake");

  private final Map<String, Map<String, String>> catalogs = new LinkedHashMap<>();
  private Path dir;
  private Process process;
  private int port;
  private long startupMillis;

  /** Adds a catalog ({@code etc/catalog/NAME.properties}); only before {@link #start()}. */
  public TrinoServer catalog(String name, Map<String, String> properties) {
    if (process != null) {
      throw new IllegalStateException("catalogs are written before the server starts");
    }
    catalogs.put(name, Map.copyOf(properties));
    return this;
  }

  public TrinoServer start() {
    if (process != null) {
      return this;
    }
    long t0 = System.nanoTime();
    try {
      Path home = installation();
      dir = Files.createTempDirectory("trino-server");
      port = freePort();
      Path etc = dir.resolve("etc");
      Files.createDirectories(etc.resolve("catalog"));
      Map<String, String> config = new LinkedHashMap<>();
      config.put("coordinator", "true");
      config.put("node-scheduler.include-coordinator", "true");
      config.put("http-server.http.port", String.valueOf(port));
      config.put("discovery.uri", "http://127.0.0.1:" + port);
      config.put("node.environment", "test");
      config.put("node.id", "resurfacer-test-" + port);
      config.put("node.bind-ip", "127.0.0.1");
      config.put("node.internal-address", "127.0.0.1");
      config.put("plugin.dir", home.resolve("plugin").toString());
      config.put("catalog.config-dir", etc.resolve("catalog").toString());
      config.put("query.max-memory", "512MB");
      config.put("query.max-memory-per-node", "512MB");
      config.put("task.concurrency", "2");
      config.put("http-server.log.enabled", "false");
      write(etc.resolve("config.properties"), config);
      for (Map.Entry<String, Map<String, String>> c : catalogs.entrySet()) {
        write(etc.resolve("catalog").resolve(c.getKey() + ".properties"), c.getValue());
      }
      List<String> command = new ArrayList<>(List.of(
          java().toString(),
          "-Xmx1500m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:+ExitOnOutOfMemoryError",
          "-Djdk.attach.allowAttachSelf=true",
          "-XX:+EnableDynamicAgentLoading",
          // s3proxy rejects the AWS SDK's default trailing checksums on PUT
          "-Daws.requestChecksumCalculation=WHEN_REQUIRED",
          "-Daws.responseChecksumValidation=WHEN_REQUIRED",
          "-Dnode.data-dir=" + Files.createDirectories(dir.resolve("data")),
          "-Dconfig=" + etc.resolve("config.properties"),
          "-cp",
          home.resolve("lib") + "/*",
          "io.trino.server.TrinoServer"));
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
      pb.redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile());
      process = pb.start();
      // a test JVM that dies without closing its fixtures must not leave a Trino server running
      Process started = process;
      Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "stop-trino"));
      awaitReady();
      startupMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      return this;
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(e);
    }
  }

  /** {@code jdbc:trino://127.0.0.1:PORT}. */
  public String jdbcUrl() {
    return "jdbc:trino://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Wall time of the last {@link #start()}: unpacking (first run only), JVM start, plugin loading. */
  public long startupMillis() {
    return startupMillis;
  }

  public String log() {
    return ChildProcesses.log(dir.resolve("server.log"));
  }

  @Override
  public void close() {
    ChildProcesses.stop(process, 20);
    process = null;
    deleteTree(dir);
  }

  /** Ready when {@code /v1/info} says the server is no longer starting (plugins and catalogs loaded). */
  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(420);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Trino exited with " + process.exitValue() + ":\n" + tail(log()));
      }
      try {
        HttpURLConnection c = (HttpURLConnection)
            URI.create("http://127.0.0.1:" + port + "/v1/info").toURL().openConnection();
        c.setConnectTimeout(1000);
        c.setReadTimeout(5000);
        if (c.getResponseCode() == 200) {
          String body = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
          if (body.replace(" ", "").contains("\"starting\":false") && hasAnActiveNode()) {
            return;
          }
        }
      } catch (IOException notYet) {
        // still starting
      }
      sleep(250);
    }
    throw new IllegalStateException("Trino did not start within 420s:\n" + tail(log()));
  }

  /**
   * A server past starting may not yet see itself as a node to schedule on (its announcement reaches
   * the node manager a few seconds later): a table scan then fails with "No nodes available to run
   * query" (seen in CI). Ready means the node manager lists an active node.
   */
  private boolean hasAnActiveNode() {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl(), "test", null);
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery("SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'")) {
      return rs.next() && rs.getLong(1) > 0;
    } catch (java.sql.SQLException notYet) {
      return false;
    }
  }

  /**
   * The unpacked server under {@code trino.server.home}, unpacked from {@code trino.server.tarball}
   * when missing. Unpacks into a sibling folder and renames it, so an interrupted run never leaves
   * a half-unpacked server behind.
   */
  static synchronized Path installation() throws IOException {
    String tarball = System.getProperty("trino.server.tarball");
    String homeProperty = System.getProperty("trino.server.home");
    if (tarball == null || homeProperty == null || tarball.startsWith("${")) {
      throw new IllegalStateException(
          "trino.server.tarball and trino.server.home are unset: run through Maven (resurfacer-trino-tests)");
    }
    String version = Path.of(tarball)
        .getFileName()
        .toString()
        .replaceFirst("^trino-server-", "")
        .replaceFirst("\\.tar\\.gz$", "");
    Path home = Path.of(homeProperty).resolve("trino-server-" + version);
    if (Files.isRegularFile(home.resolve(".unpacked"))) {
      return home;
    }
    Path staging = Files.createDirectories(Path.of(homeProperty))
        .resolve("unpacking-" + ProcessHandle.current().pid());
    deleteTree(staging);
    Files.createDirectories(staging);
    run(List.of("tar", "-xzf", tarball, "-C", staging.toString()));
    Path unpacked = staging.resolve("trino-server-" + version);
    try (Stream<Path> plugins = Files.list(unpacked.resolve("plugin"))) {
      for (Path plugin : plugins.toList()) {
        if (!PLUGINS.contains(plugin.getFileName().toString())) {
          deleteTree(plugin);
        }
      }
    }
    Files.writeString(unpacked.resolve(".unpacked"), tarball + "\n");
    deleteTree(home);
    Files.move(unpacked, home, StandardCopyOption.ATOMIC_MOVE);
    deleteTree(staging);
    return home;
  }

  /**
   * The JDK Trino runs on: {@code trino.java.home}, else {@code TRINO_JAVA_HOME}, else the newest
   * JDK 24+ under {@code /usr/lib/jvm} (Trino 47x needs Java 24 or later).
   */
  static Path java() {
    String configured = Optional.ofNullable(System.getProperty("trino.java.home"))
        .orElse(System.getenv("TRINO_JAVA_HOME"));
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured, "bin", "java");
    }
    try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
      return jdks.filter(j -> Files.isExecutable(j.resolve("bin/java")) && !Files.isSymbolicLink(j))
          .filter(j -> featureVersion(j) >= 24)
          .max(Comparator.comparingInt(TrinoServer::featureVersion))
          .map(j -> j.resolve("bin/java"))
          .orElseThrow(() -> new IllegalStateException(
              "no JDK 24+ under /usr/lib/jvm for Trino: set TRINO_JAVA_HOME"));
    } catch (IOException e) {
      throw new IllegalStateException(
          "no JDK 24+ for Trino (" + e.getMessage() + "): set TRINO_JAVA_HOME", e);
    }
  }

  private static int featureVersion(Path jdk) {
    try {
      for (String line : Files.readAllLines(jdk.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          return Integer.parseInt(v.split("[.+-]")[0]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  private static void run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException(
            String.join(" ", command) + " failed with " + p.exitValue() + ": " + tail(out));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static void write(Path file, Map<String, String> properties) throws IOException {
    StringBuilder b = new StringBuilder();
    properties.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, b);
  }

  private static String tail(String text) {
    return text.length() <= 6000 ? text : "…" + text.substring(text.length() - 6000);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
