package dev.resurfacer.it.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Disk;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.it.child.ChildCli;
import dev.resurfacer.it.report.Counts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 at random points: each trial builds a fresh table, starts the real CLI jar on it and
 * SIGKILLs it after a random delay within the measured length of an undisturbed run. Whatever the
 * moment, the table must load, keep every retained snapshot's and ref's rows, miss no referenced
 * file, and a later remove-orphans (age guard off) must bring storage back to exactly the
 * reachable set. Trials: -Dreliability.trials (1 by default, 50 with -Plong).
 */
class KillTrialsTest {
  static final int TRIALS = Integer.getInteger("reliability.trials", 1);

  enum Operation {
    COMPACT(
        "compact",
        "--yes",
        "--rewrite-all",
        "--min-input-files",
        "2",
        "--partial-progress",
        "--max-commits",
        "4",
        "--max-concurrent",
        "1"),
    EXPIRE("expire", "--yes", "--older-than", "0s", "--retain-last", "2"),
    REMOVE_ORPHANS("remove-orphans", "--yes", "--older-than", "1d"),
    REWRITE_MANIFESTS("rewrite-manifests", "--yes"),
    CONDENSE("condense", "--yes", "--to", "month", "--older-than", "30d");

    final String[] args;

    Operation(String... args) {
      this.args = args;
    }

    String[] command(Path catalogDir) {
      List<String> out = new ArrayList<>(List.of(args[0], EventsHistory.ID.toString()));
      out.addAll(List.of(args).subList(1, args.length));
      out.addAll(List.of(EventsHistory.catalogFlags(catalogDir)));
      return out.toArray(String[]::new);
    }
  }

  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(Operation.class)
  void aKilledRunLosesNothingAndLeavesOnlySweepableFiles(Operation op) {
    Random random = new Random(7919L * (op.ordinal() + 1));
    long invariantsBefore = Invariants.checked();
    Map<String, Integer> outcomes = new java.util.TreeMap<>();

    // An undisturbed run first: it must succeed, and its length bounds where the kills land.
    Trial calibration = trial(op, 0, -1);
    assertThat(calibration.run().exitCode())
        .as("undisturbed %s: %s", op, calibration.run().err())
        .isZero();
    assertThat(calibration.changed())
        .as("undisturbed %s changes the table or storage", op)
        .isTrue();
    long length = calibration.run().millis();
    outcomes.merge("finished", 1, Integer::sum);

    for (int t = 1; t <= TRIALS; t++) {
      long killAt = (long) (length * (0.35 + 0.7 * random.nextDouble()));
      Trial trial = trial(op, t, killAt);
      String outcome = !trial.run().killed()
          ? "finished"
          : trial.changed() ? "killed mid-way" : "killed before any change";
      outcomes.merge(outcome, 1, Integer::sum);
      if (!trial.run().killed()) {
        assertThat(trial.run().exitCode()).as(trial.run().err()).isZero();
      }
    }
    Counts.record(String.format(
        "crash %-18s trials %d (+1 undisturbed, %d ms) %s, invariants checked %d",
        op.args[0], TRIALS, length, outcomes, Invariants.checked() - invariantsBefore));
  }

  record Trial(ChildCli.Result run, boolean changed) {}

  private Trial trial(Operation op, int n, long killAt) {
    Path trialDir = dir.resolve(op.name().toLowerCase(java.util.Locale.ROOT) + "-" + n);
    Path catalogDir = trialDir.resolve("lake");
    EventsHistory.build(catalogDir, 18, op == Operation.REMOVE_ORPHANS ? 400 : 20);
    JdbcCatalog catalog = SqliteCatalogs.create(EventsHistory.CATALOG, catalogDir);
    TableState before;
    Set<Path> filesBefore;
    try {
      Table table = catalog.loadTable(EventsHistory.ID);
      before = TableState.capture(table);
      filesBefore = Disk.files(table);
    } finally {
      EventsHistory.close(catalog);
    }

    ChildCli.Result run = new ChildCli(trialDir, Map.of()).run(killAt, op.command(catalogDir));

    catalog = SqliteCatalogs.create(EventsHistory.CATALOG, catalogDir);
    try {
      Table table = Invariants.sameRowsAndNothingMissing(catalog, EventsHistory.ID, before);
      boolean changed = !TableState.metadataLocation(table).equals(before.metadataLocation())
          || !Disk.files(table).equals(filesBefore);
      Invariants.sweepLeavesExactlyTheReachableFiles(catalog, EventsHistory.ID);
      Invariants.sameRowsAndNothingMissing(catalog, EventsHistory.ID, before);
      return new Trial(run, changed);
    } finally {
      EventsHistory.close(catalog);
    }
  }
}
