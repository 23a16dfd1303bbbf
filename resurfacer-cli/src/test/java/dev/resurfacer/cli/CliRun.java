package dev.resurfacer.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** Runs the real CLI in-process with its own working directory and environment, capturing both streams. */
record CliRun(int exitCode, String out, String err) {
  static CliRun run(Path workingDir, Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine(new CliContext(env, workingDir, workingDir.resolve("home")));
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  static CliRun run(Path workingDir, String... args) {
    return run(workingDir, Map.of(), args);
  }
}
