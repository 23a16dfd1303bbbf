package dev.resurfacer.it.serve;

import dev.resurfacer.it.child.ChildCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code java -jar resurfacer.jar serve ...} as a child process, with its port read from its first lines. */
final class ServeProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final Process process;
  final int port;
  final Path stdout;
  final Path stderr;

  private ServeProcess(Process process, int port, Path stdout, Path stderr) {
    this.process = process;
    this.port = port;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  static ServeProcess start(Path dir, String name, String... args) throws Exception {
    return startAll(dir, List.of(name), args).get(0);
  }

  /** Starts one process per name at once (their JVMs warm up side by side), then waits until every one listens. */
  static List<ServeProcess> startAll(Path dir, List<String> names, String... args)
      throws Exception {
    Files.createDirectories(dir.resolve("tmp"));
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Djava.io.tmpdir=" + dir.resolve("tmp"),
        "-Duser.home=" + dir.resolve("home"),
        "-jar",
        ChildCli.jar().toString(),
        "serve"));
    command.addAll(List.of(args));
    List<Process> processes = new ArrayList<>();
    for (String name : names) {
      ProcessBuilder pb = new ProcessBuilder(command)
          .directory(dir.toFile())
          .redirectOutput(dir.resolve(name + ".out").toFile())
          .redirectError(dir.resolve(name + ".err").toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("RESURFACER_"));
      processes.add(pb.start());
    }
    List<ServeProcess> started = new ArrayList<>();
    try {
      for (int i = 0; i < names.size(); i++) {
        started.add(awaitListening(
            processes.get(i),
            dir.resolve(names.get(i) + ".out"),
            dir.resolve(names.get(i) + ".err")));
      }
      return started;
    } catch (Exception e) {
      processes.forEach(Process::destroyForcibly);
      throw e;
    }
  }

  private static ServeProcess awaitListening(Process p, Path out, Path err) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(Files.readString(out));
      if (m.find()) {
        return new ServeProcess(p, Integer.parseInt(m.group(1)), out, err);
      }
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "serve exited with " + p.exitValue() + ": " + Files.readString(err));
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "serve did not start listening in 90 s: " + Files.readString(err));
  }

  long pid() {
    return process.pid();
  }

  HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(url(path)))
        .timeout(Duration.ofSeconds(30))
        .build());
  }

  HttpResponse<String> post(String path, String form) {
    return send(HttpRequest.newBuilder(URI.create(url(path)))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form))
        .build());
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /** SIGTERM, then the exit code once it stopped (running work finishes first). */
  int terminate() throws Exception {
    process.destroy();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("serve did not stop within 120 s of SIGTERM");
    }
    return process.exitValue();
  }

  void kill9() throws Exception {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  String err() throws IOException {
    return Files.readString(stderr);
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
