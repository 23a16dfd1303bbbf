package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.OptimizeUndo.Outcome;
import dev.resurfacer.delta.compact.OptimizeUndo.Refused;
import dev.resurfacer.delta.compact.OptimizeUndo.Undone;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Undoing a version delta-spark's OPTIMIZE committed, on a partitioned table with deletion vectors
 * and a checkpoint that delta-spark wrote: the undo lands only on exactly that version. A commit
 * landing between our check and our commit fails ours and stands; once it is there, the undo is
 * refused before writing anything. ({@link S3OptimizeUndoTest}: the same on {@code s3://}.)
 */
class OptimizeUndoTest {
  @TempDir
  Path dir;

  /** A copy of the shared table, then delta-spark's OPTIMIZE on it: the version to undo is the newest. */
  private DeltaTable optimized(String name) throws Exception {
    Path copy = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve(name));
    DeltaSpark.sql("OPTIMIZE " + DeltaSpark.table(copy));
    return DeltaTables.open("raw." + name, copy.toString(), dir);
  }

  @Test
  void aVersionDeltaSparksOptimizeCommittedIsUndoneByAKernelCommitHoldingItsParentsFiles()
      throws Exception {
    DeltaTable table = optimized("undone");
    long v = table.latest().getVersion();
    Set<LiveFile> parent = Set.copyOf(LiveFiles.of(table, table.atVersion(v - 1)));
    assertThat(Set.copyOf(LiveFiles.of(table, table.latest())))
        .as("OPTIMIZE rewrote files")
        .isNotEqualTo(parent);
    assertThat(parent)
        .as("files with deletion vectors come back")
        .anyMatch(f -> f.deletionVector().isPresent());
    List<String> rowsBefore = DeltaSpark.typedRows(table.localRoot());

    Outcome outcome = OptimizeUndo.undo(table, v, Clock.systemUTC());

    assertThat(outcome)
        .isInstanceOf(Undone.class)
        .extracting(o -> ((Undone) o).version())
        .isEqualTo(v + 1);
    assertThat(table.latest().getVersion()).isEqualTo(v + 1);
    assertThat(Set.copyOf(LiveFiles.of(table, table.latest())))
        .as(
            "the parent's files: path, size, partition, deletion vector and stats' row count as the log held them")
        .isEqualTo(parent);
    assertThat(DeltaSpark.typedRows(table.localRoot())).isEqualTo(rowsBefore);
    String entry =
        Files.readString(table.localRoot().resolve(String.format("_delta_log/%020d.json", v + 1)));
    assertThat(entry)
        .contains("\"dataChange\":false")
        .doesNotContain("\"dataChange\":true")
        .contains("\"stats\"");
    Row history = DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(table.localRoot()) + " LIMIT 1")
        .first();
    assertThat(history.<Long>getAs("version")).isEqualTo(v + 1);
    assertThat(history.<String>getAs("operation")).isEqualTo("RESTORE");
    assertThat(history.<String>getAs("engineInfo")).contains("resurfacer");
    assertThat(history
            .<scala.collection.Map<String, String>>getAs("operationParameters")
            .get("version")
            .get())
        .isEqualTo(String.valueOf(v - 1));
  }

  @Test
  void aCommitLandingBetweenTheCheckAndOurCommitFailsOursAndStandsAndLaterUndoesAreRefused()
      throws Exception {
    DeltaTable table = optimized("race");
    long v = table.latest().getVersion();
    Set<String> logBefore = logEntries(table);
    Set<LiveFile> optimizedFiles = Set.copyOf(LiveFiles.of(table, table.latest()));

    Outcome raced = OptimizeUndo.undo(
        table,
        v,
        Clock.systemUTC(),
        () -> DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(table.localRoot())
            + " VALUES (9002, 'x%y', 'raced')"));

    assertThat(raced).isInstanceOf(Refused.class);
    assertThat(raced.describe())
        .contains("version(s) " + (v + 1) + " (WRITE by Apache-Spark")
        .contains("our commit failed")
        .doesNotContain("\n");
    assertThat(table.latest().getVersion()).as("no version after theirs").isEqualTo(v + 1);
    Set<String> added = logEntries(table);
    added.removeAll(logBefore);
    assertThat(added)
        .as("only their entry (and its checksum) joined the log")
        .isNotEmpty()
        .allMatch(n -> n.startsWith(String.format("%020d.", v + 1)));
    Row history = DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(table.localRoot()) + " LIMIT 1")
        .first();
    assertThat(history.<String>getAs("operation")).isEqualTo("WRITE");
    Set<LiveFile> withTheirs = Set.copyOf(LiveFiles.of(table, table.latest()));
    assertThat(withTheirs)
        .as("their file on top of the OPTIMIZE's, nothing of ours")
        .containsAll(optimizedFiles)
        .hasSize(optimizedFiles.size() + 1);
    assertThat(DeltaSpark.typedRows(table.localRoot()))
        .anyMatch(r -> r.contains("id:bigint=9002/Long") && r.contains("raced"));

    Set<String> logAfterRace = logEntries(table);
    Outcome later = OptimizeUndo.undo(table, v, Clock.systemUTC());

    assertThat(later).isInstanceOf(Refused.class);
    assertThat(later.describe())
        .contains("version(s) " + (v + 1) + " (WRITE by Apache-Spark")
        .contains("after version " + v)
        .contains("nothing changed")
        .doesNotContain("\n");
    assertThat(logEntries(table)).as("nothing written").isEqualTo(logAfterRace);
    assertThat(Set.copyOf(LiveFiles.of(table, table.latest()))).isEqualTo(withTheirs);

    // their WRITE is the newest version now, but only an OPTIMIZE is ever taken back
    Outcome notOurs = OptimizeUndo.undo(table, v + 1, Clock.systemUTC());
    assertThat(notOurs).isInstanceOf(Refused.class);
    assertThat(notOurs.describe()).contains("is not an OPTIMIZE (WRITE)");
    assertThat(logEntries(table)).as("nothing written").isEqualTo(logAfterRace);
  }

  private static Set<String> logEntries(DeltaTable table) throws Exception {
    try (var s = Files.list(table.localRoot().resolve("_delta_log"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith("."))
          .collect(Collectors.toCollection(HashSet::new));
    }
  }
}
