package dev.resurfacer.it.child;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged CLI jar ({@code java -jar resurfacer.jar ...}) as a child process in its own
 * directory, optionally killing it with SIGKILL after a delay: the process gets no chance to clean up.
 */
public final class ChildCli {
  private final Path workDir;
  private final Map<String, String> env;
  private final Path jar;

  public ChildCli(Path workDir, Map<String, String> env) {
    this(workDir, env, jar());
  }

  /** Runs {@code jar} instead of resurfacer.jar (resurfacer-local.jar: {@link #localJar}). */
  public ChildCli(Path workDir, Map<String, String> env, Path jar) {
    this.workDir = workDir;
    this.env = env;
    this.jar = jar;
  }

  /** How a child run ended. {@code killed} means SIGKILL landed while it was still running. */
  public record Result(int exitCode, boolean killed, long millis, String out, String err) {}

  public static Path jar() {
    return built(System.getProperty("resurfacer.jar", "../resurfacer-cli/target/resurfacer.jar"));
  }

  /** The runnable jar built without the Google Cloud Storage and Azure SDKs. */
  public static Path localJar() {
    return built(System.getProperty(
        "resurfacer-local.jar", "../resurfacer-cli/target/resurfacer-local.jar"));
  }

  private static Path built(String path) {
    Path jar = Path.of(path);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "runnable jar not built: " + jar.toAbsolutePath() + " (run through mvn verify)");
    }
    return jar.toAbsolutePath();
  }

  public Result run(String... args) {
    return run(-1, args);
  }

  /** Runs to completion, or kills the child {@code killAfterMillis} after start when that is not negative. */
  public Result run(long killAfterMillis, String... args) {
    try {
      Files.createDirectories(workDir.resolve("tmp"));
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx768m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-Djava.io.tmpdir=" + workDir.resolve("tmp"),
          "-Duser.home=" + workDir.resolve("home"),
          "-jar",
          jar.toString()));
      command.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(command)
          .directory(workDir.toFile())
          .redirectOutput(workDir.resolve("stdout.txt").toFile())
          .redirectError(workDir.resolve("stderr.txt").toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("RESURFACER_"));
      pb.environment().putAll(env);
      long t0 = System.nanoTime();
      Process p = pb.start();
      boolean killed = false;
      if (killAfterMillis >= 0 && !p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        killed = true;
      }
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("child did not finish in 5 minutes: " + args[0]);
      }
      long millis = (System.nanoTime() - t0) / 1_000_000;
      return new Result(
          p.exitValue(),
          killed,
          millis,
          Files.readString(workDir.resolve("stdout.txt")),
          Files.readString(workDir.resolve("stderr.txt")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
