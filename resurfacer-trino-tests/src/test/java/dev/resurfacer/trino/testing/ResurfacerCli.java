package dev.resurfacer.trino.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The runnable jar as a child process, the way a user runs it: exit code, stdout and stderr. */
public final class ResurfacerCli {
  private ResurfacerCli() {}

  public record Run(int exit, String out, String err) {}

  /** Runs {@code args}, then {@code --config config --catalog catalog} when {@code config} is set; {@code dir} holds stderr. */
  public static Run run(
      Path dir, Path config, String catalog, Map<String, String> env, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-Daws.requestChecksumCalculation=WHEN_REQUIRED",
        "-Daws.responseChecksumValidation=WHEN_REQUIRED",
        "-jar",
        System.getProperty("resurfacer.jar")));
    command.addAll(List.of(args));
    if (config != null) {
      command.addAll(List.of("--config", config.toString()));
      if (catalog != null) {
        command.addAll(List.of("--catalog", catalog));
      }
    }
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out, Files.readString(err).strip());
  }
}
