package dev.resurfacer.it.delta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.it.child.ChildCli;
import dev.resurfacer.it.report.Counts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of the CLI jar during Delta compaction, vacuum and cleanup-log, at random points within
 * the length of an undisturbed run: afterwards Kernel reads exactly the rows written (for
 * cleanup-log: at every version from the kept checkpoint on), every file the latest version
 * references exists, and a rerun of the same command completes. Trials: -Dreliability.trials
 * (1 by default, 50 with -Plong).
 */
class DeltaKillTrialsTest {
  static final int TRIALS = Integer.getInteger("reliability.trials", 1);
  private static final int FILES = 40;
  private static final int ROWS_PER_FILE = 200;
  /** For cleanup-log: the version checkpointed before the last appends; entries below it are what cleanup deletes. */
  private static final long CHECKPOINT_VERSION = FILES - 5;

  enum Operation {
    COMPACT("compact", "--yes"),
    VACUUM("vacuum", "--yes", "--retention", "0s", "--force-retention"),
    CLEANUP_LOG("cleanup-log", "--yes", "--retention", "0s");

    final String[] args;

    Operation(String... args) {
      this.args = args;
    }
  }

  @TempDir
  Path dir;

  /** A table of {@link #FILES} one-file commits; for vacuum, already compacted so every original file is a tombstone. */
  private Path table(Operation op, Path workDir) {
    Path root = workDir.resolve("events");
    KernelTable t = KernelTable.create(root);
    for (int i = 0; i < FILES; i++) {
      t.append((long) i * ROWS_PER_FILE, ROWS_PER_FILE);
      if (op == Operation.CLEANUP_LOG && t.version() == CHECKPOINT_VERSION) {
        ChildCli.Result checkpoint =
            new ChildCli(workDir, Map.of()).run("checkpoint", root.toString(), "--yes");
        assertThat(checkpoint.exitCode()).as(checkpoint.err()).isZero();
      }
    }
    if (op == Operation.VACUUM) {
      ChildCli.Result compact =
          new ChildCli(workDir, Map.of()).run("compact", root.toString(), "--yes");
      assertThat(compact.exitCode()).as(compact.err()).isZero();
    }
    return root;
  }

  private static List<String> expectedRows() {
    return java.util.stream.LongStream.range(0, (long) FILES * ROWS_PER_FILE)
        .mapToObj(i -> i + ":v" + i)
        .sorted()
        .toList();
  }

  /** Rows of version {@code v}: each version after the first adds one file of {@link #ROWS_PER_FILE} rows. */
  private static List<String> expectedRowsAt(long v) {
    return java.util.stream.LongStream.range(0, v * ROWS_PER_FILE)
        .mapToObj(i -> i + ":v" + i)
        .sorted()
        .toList();
  }

  /** What the operation changes on storage: data files, or for cleanup-log the log's entries. */
  private static long footprint(Operation op, Path root) {
    return op == Operation.CLEANUP_LOG ? logEntries(root) : dataFiles(root);
  }

  private static long logEntries(Path root) {
    try (Stream<Path> s = Files.list(root.resolve("_delta_log"))) {
      return s.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long dataFiles(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(
              p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log"))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @EnumSource(Operation.class)
  void aKilledRunLosesNoRowAndARerunCompletes(Operation op) throws Exception {
    Random random = new Random(104729L * (op.ordinal() + 1));
    List<String> expected = expectedRows();
    Map<String, Integer> outcomes = new TreeMap<>();

    Path calibrationDir = Files.createDirectories(dir.resolve("calibration"));
    Path calibrationTable = table(op, calibrationDir);
    long filesBefore = footprint(op, calibrationTable);
    ChildCli.Result calibration =
        new ChildCli(calibrationDir, Map.of()).run(cmd(op, calibrationTable));
    assertThat(calibration.exitCode())
        .as("undisturbed %s: %s", op, calibration.err())
        .isZero();
    assertThat(footprint(op, calibrationTable))
        .as("undisturbed %s changes storage", op)
        .isNotEqualTo(filesBefore);
    long length = calibration.millis();

    for (int t = 1; t <= TRIALS; t++) {
      Path workDir = Files.createDirectories(dir.resolve("trial-" + t));
      Path root = table(op, workDir);
      long version = new KernelTable(root).version();
      long killAt = (long) (length * (0.35 + 0.7 * random.nextDouble()));
      ChildCli.Result run = new ChildCli(workDir, Map.of()).run(killAt, cmd(op, root));
      KernelTable table = new KernelTable(root);
      String outcome = !run.killed()
          ? "finished"
          : table.version() != version ? "killed after a commit" : "killed";
      outcomes.merge(outcome, 1, Integer::sum);
      if (!run.killed()) {
        assertThat(run.exitCode()).as(run.err()).isZero();
      }
      assertThat(table.rows())
          .as(
              "trial %d of %s (%s at %d ms): the table reads the rows written",
              t, op, outcome, killAt)
          .isEqualTo(expected);
      if (op == Operation.CLEANUP_LOG) {
        for (long v = CHECKPOINT_VERSION; v <= table.version(); v++) {
          assertThat(table.rowsAt(v))
              .as("trial %d of cleanup-log: version %d reads as written", t, v)
              .isEqualTo(expectedRowsAt(v));
        }
      }

      ChildCli.Result rerun = new ChildCli(workDir, Map.of()).run(cmd(op, root));
      assertThat(rerun.exitCode())
          .as("rerun after trial %d: %s", t, rerun.err())
          .isZero();
      assertThat(new KernelTable(root).rows()).isEqualTo(expected);
      if (op == Operation.COMPACT) {
        ChildCli.Result plan = new ChildCli(workDir, Map.of()).run("plan", root.toString());
        assertThat(plan.out())
            .as("the rerun compacted what the killed run left")
            .contains("would rewrite 0 files");
      } else if (op == Operation.VACUUM) {
        // what the killed compaction or vacuum left unreferenced is gone; only the live file
        // remains
        assertThat(dataFiles(root)).isEqualTo(1);
      } else {
        try (Stream<Path> s = Files.list(root.resolve("_delta_log"))) {
          assertThat(s.map(p -> p.getFileName().toString())
                  .filter(n -> n.endsWith(".json"))
                  .sorted()
                  .findFirst())
              .as("the rerun deleted every commit before the checkpoint")
              .contains(String.format("%020d.json", CHECKPOINT_VERSION));
        }
        for (long v = CHECKPOINT_VERSION; v <= FILES; v++) {
          assertThat(new KernelTable(root).rowsAt(v)).isEqualTo(expectedRowsAt(v));
        }
      }
    }
    Counts.record(String.format(
        "crash delta %-8s trials %d (+1 undisturbed, %d ms) %s",
        op.name().toLowerCase(java.util.Locale.ROOT), TRIALS, length, outcomes));
  }

  private static String[] cmd(Operation op, Path root) {
    String[] out = new String[op.args.length + 1];
    out[0] = op.args[0];
    out[1] = root.toString();
    System.arraycopy(op.args, 1, out, 2, op.args.length - 1);
    return out;
  }
}
