package dev.resurfacer.iceberg.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * The test servers that ship as npm packages ({@code test-servers/NAME}: a package.json and its
 * committed package-lock.json), installed with {@code npm ci} into a cache directory keyed by the lock
 * file's digest, once; later runs need no network. Without node and npm the caller is skipped, and on
 * CI ({@code CI=true}) that fails instead.
 */
public final class NpmTestServers {
  private NpmTestServers() {}

  /** The installed package's directory; {@code marker} is a file under it that a complete install has. */
  public static Path installed(String name, String marker) {
    Path spec = findUp("test-servers/" + name);
    if (!onPath("node") || !onPath("npm")) {
      assertThat(System.getenv("CI"))
          .as("CI must have node and npm (for " + name + ")")
          .isNotEqualTo("true");
      Assumptions.abort("node/npm are not installed: " + name + " cannot run");
    }
    try {
      byte[] lock = Files.readAllBytes(spec.resolve("package-lock.json"));
      String digest = HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(lock))
          .substring(0, 12);
      Path cache = Path.of(System.getProperty(
              "resurfacer.test.cache", System.getProperty("user.home") + "/.cache/resurfacer"))
          .resolve("npm/" + name + "-" + digest);
      if (Files.isRegularFile(cache.resolve(marker))) {
        return cache;
      }
      Files.createDirectories(cache.getParent());
      Path staging = Files.createTempDirectory(cache.getParent(), "install");
      Files.copy(spec.resolve("package.json"), staging.resolve("package.json"));
      Files.copy(spec.resolve("package-lock.json"), staging.resolve("package-lock.json"));
      Process npm = new ProcessBuilder(
              "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
          .directory(staging.toFile())
          .redirectErrorStream(true)
          .redirectOutput(staging.resolve("npm.log").toFile())
          .start();
      if (!npm.waitFor(10, TimeUnit.MINUTES) || npm.exitValue() != 0) {
        npm.destroyForcibly();
        throw new IllegalStateException(
            "npm ci for " + name + " failed: " + Files.readString(staging.resolve("npm.log")));
      }
      try {
        Files.move(staging, cache, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException raced) {
        if (!Files.isDirectory(cache)) {
          throw raced; // another run installed it at the same time otherwise
        }
      }
      return cache;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A started server process and the loopback port it printed; stopped (and its exit hook removed) by {@link #stop}. */
  public record Running(Process process, int port, Thread stopAtExit) {
    /** Starts {@code server} and waits for the line {@code listening} matches, whose first group is the port. */
    public static Running start(ProcessBuilder server, Pattern listening, String name)
        throws IOException {
      Process process = server.redirectErrorStream(true).start();
      Thread stopAtExit = new Thread(process::destroyForcibly);
      Runtime.getRuntime().addShutdownHook(stopAtExit);
      BufferedReader out = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      List<String> seen = new ArrayList<>();
      int port = 0;
      String line;
      while ((line = out.readLine()) != null) {
        seen.add(line);
        Matcher m = listening.matcher(line);
        if (m.find()) {
          port = Integer.parseInt(m.group(1));
          break;
        }
      }
      if (port == 0) {
        process.destroyForcibly();
        throw new IllegalStateException(name + " did not start: " + String.join(" | ", seen));
      }
      Thread drain = new Thread(
          () -> {
            try {
              out.lines().forEach(l -> {});
            } catch (UncheckedIOException stopped) {
              // the server was stopped: its output closed under the reader
            }
          },
          name + "-output");
      drain.setDaemon(true);
      drain.start();
      return new Running(process, port, stopAtExit);
    }

    public void stop() {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
      } catch (IllegalStateException exiting) {
        // the hook runs anyway
      }
    }
  }

  /** {@code relative} in the nearest directory above the working directory that has it. */
  public static Path findUp(String relative) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve(relative))) {
        return d.resolve(relative);
      }
    }
    throw new IllegalStateException(relative + " not found above " + Path.of("").toAbsolutePath());
  }

  private static boolean onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return false;
  }
}
