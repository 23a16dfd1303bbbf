package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.trino.testing.DeltaTrinoTables;
import dev.resurfacer.trino.testing.ResurfacerCli;
import dev.resurfacer.trino.testing.ResurfacerCli.Run;
import dev.resurfacer.trino.testing.TrinoLake;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta tables through Trino's Delta Lake connector, on tables Trino wrote on s3proxy and we open at
 * the same {@code s3://} locations: optimize and vacuum run by Trino, previewed and fenced by us, rows read back identical by Trino and by Delta Kernel; the
 * refusals (a vacuum Trino could take further than our fences, its floor, deletion vectors, z-order).
 */
class DeltaOnTrinoTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  static final DeltaTrinoTables TABLES = new DeltaTrinoTables(LAKE);

  @TempDir
  static Path dir;

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Step run(String catalog, Operation op, DeltaTable t, Mode mode) throws Exception {
    TrinoConnection trino =
        new TrinoConnection(LAKE.trino().jdbcUrl(), catalog, "resurfacer-test", null, null);
    for (OperationExecutor<?, DeltaTable> e : DeltaOnTrino.executors(trino)) {
      if (e.operationType().isInstance(op)) {
        return ((OperationExecutor) e).execute(op, t, mode);
      }
    }
    throw new AssertionError("no Trino executor for " + op.name());
  }

  /** The table's files as s3proxy's filesystem backend stores them. */
  static Set<Path> files(String name) throws Exception {
    try (Stream<Path> walk = Files.walk(TABLES.localPath(name))) {
      return walk.filter(Files::isRegularFile)
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void optimizeThenVacuumThroughTrinoKeepTheRowsBothReadersSee() throws Exception {
    DeltaTable t = TABLES.create("d_verbs", 3, null);
    List<String> trino = TABLES.trinoRows("d_verbs");
    assertThat(trino).hasSize(96);
    assertThat(DeltaTrinoTables.kernelRows(t)).isEqualTo(trino);
    long version = t.latest().getVersion();
    int liveBefore = LiveFiles.of(t, t.latest()).size();

    Step preview = run(TrinoLake.DELTA_CATALOG, Compact.binpack(), t, Mode.PREVIEW);
    assertThat(preview.outcome()).as(preview.message()).isEqualTo(Outcome.PREVIEWED);
    assertThat(preview.metrics().get("candidate_files")).isEqualTo(liveBefore);
    assertThat(t.latest().getVersion()).isEqualTo(version);
    assertThatThrownBy(
            () -> run(TrinoLake.DELTA_CATALOG, Compact.zOrder("id", "qty"), t, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("only bin-packs");

    Step compact = run(TrinoLake.DELTA_CATALOG, Compact.binpack(), t, Mode.COMMIT);
    assertThat(compact.outcome()).as(compact.message()).isEqualTo(Outcome.DONE);
    assertThat(compact.message()).contains("verified");
    assertThat(LiveFiles.of(t, t.latest())).hasSize(2);
    assertThat(TABLES.trinoRows("d_verbs")).isEqualTo(trino);
    assertThat(DeltaTrinoTables.kernelRows(t)).isEqualTo(trino);

    // a leftover in a hidden folder: our vacuum never touches it, Trino's might, so the run is
    // refused
    assertThat(t.storage().root().scheme()).isEqualTo("s3");
    Path hidden = Files.createDirectories(TABLES.localPath("d_verbs").resolve("_scratch"))
        .resolve("old.parquet");
    Files.write(hidden, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(hidden, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    Set<Path> filesBefore = files("d_verbs");
    Vacuum vacuum = new Vacuum(Duration.ZERO, true);
    assertThatThrownBy(() -> run(TrinoLake.DELTA_CATALOG, vacuum, t, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("our vacuum keeps")
        .hasMessageContaining("_scratch/old.parquet");
    assertThat(files("d_verbs")).isEqualTo(filesBefore);
    Files.delete(hidden);

    Step vacuumPreview = run(TrinoLake.DELTA_CATALOG, vacuum, t, Mode.PREVIEW);
    assertThat(vacuumPreview.outcome()).as(vacuumPreview.message()).isEqualTo(Outcome.PREVIEWED);
    long planned = vacuumPreview.metrics().get("files_to_delete");
    assertThat(planned).isGreaterThan(0);
    Step vacuumed = run(TrinoLake.DELTA_CATALOG, vacuum, t, Mode.COMMIT);
    assertThat(vacuumed.outcome()).as(vacuumed.message()).isEqualTo(Outcome.DONE);
    assertThat(vacuumed.metrics().get("deleted_files")).isPositive().isLessThanOrEqualTo(planned);
    assertThat(TABLES.trinoRows("d_verbs")).isEqualTo(trino);
    assertThat(DeltaTrinoTables.kernelRows(t)).isEqualTo(trino);
    for (var f : LiveFiles.of(t, t.latest())) {
      assertThat(t.storage().stat(f.file())).as(f.file().toString()).isPresent();
    }
  }

  @Test
  void trinosVacuumFloorAndDeletionVectorsAreOneLineRefusals() throws Exception {
    DeltaTable t = TABLES.create("d_floor", 1, null);
    for (Mode mode : Mode.values()) {
      assertThatThrownBy(() ->
              run(TrinoLake.DELTA_FLOORED_CATALOG, new Vacuum(Duration.ofHours(1), true), t, mode))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("delta.vacuum.min-retention is 7.00d on catalog delta_floored");
    }
    DeltaTable dv = TABLES.create("d_dv", 1, "deletion_vectors_enabled = true");
    Set<Path> before = files("d_dv");
    assertThatThrownBy(
            () -> run(TrinoLake.DELTA_CATALOG, new Vacuum(Duration.ZERO, true), dv, Mode.COMMIT))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("deletionVectors")
        .hasMessageNotContaining("\n");
    assertThat(files("d_dv")).isEqualTo(before);
  }

  /** Trino's table under our table's name must be the table we read: another one's storage was never fenced or verified. */
  @Test
  void anotherTableUnderTheSameNameInTrinoIsRefused() throws Exception {
    DeltaTable ours = TABLES.create("d_ours", 2, null);
    DeltaTable other = TABLES.create("d_other", 2, null);
    DeltaTable misnamed =
        new DeltaTable(other.name(), ours.storage()); // shares our storage: not closed here
    Set<Path> before = files("d_ours");
    Set<Path> otherBefore = files("d_other");
    for (Operation op : List.<Operation>of(Compact.binpack(), new Vacuum(Duration.ZERO, true))) {
      for (Mode mode : Mode.values()) {
        assertThatThrownBy(() -> run(TrinoLake.DELTA_CATALOG, op, misnamed, mode))
            .isInstanceOf(SafetyRefusal.class)
            .hasMessageContaining("the same table")
            .hasMessageNotContaining("\n");
      }
    }
    assertThat(files("d_ours")).isEqualTo(before);
    assertThat(files("d_other")).isEqualTo(otherBefore);
  }

  @Test
  void compactAndVacuumWithEngineTrinoThroughTheCli() throws Exception {
    DeltaTable t = TABLES.create("d_cli", 2, null);
    List<String> trino = TABLES.trinoRows("d_cli");
    Path config = Files.writeString(
        dir.resolve("delta.yml"),
        TABLES.catalogYaml("d_cli") + "engines:\n  trino:\n    url: "
            + LAKE.trino().jdbcUrl() + "\n    delta-catalog: delta\n");

    Run compact = ResurfacerCli.run(
        dir, config, null, Map.of(), "compact", "dops.d_cli", "--engine", "trino", "--yes");
    assertThat(compact.exit()).as("%s%n%s", compact.out(), compact.err()).isZero();
    assertThat(compact.out()).contains("on trino: Trino's optimize rewrote");
    Run vacuum = ResurfacerCli.run(
        dir,
        config,
        null,
        Map.of(),
        "vacuum",
        "dops.d_cli",
        "--engine",
        "trino",
        "--retention",
        "0s",
        "--force-retention");
    assertThat(vacuum.exit()).as("%s%n%s", vacuum.out(), vacuum.err()).isZero();
    assertThat(vacuum.out()).contains("Trino's vacuum would delete", "preview only");
    assertThat(TABLES.trinoRows("d_cli")).isEqualTo(trino);
    assertThat(DeltaTrinoTables.kernelRows(t)).isEqualTo(trino);
  }

  /**
   * Releases before 470 deleted live files whose paths need URI escaping (trinodb/trino#24872) and are
   * refused such tables; the server here is 476, read by its own {@code version()}: it vacuums a table
   * with a live file in the partition of {@code 'a b%c'}, and that file stays.
   */
  @Test
  void aLivePathThatNeedsEscapingIsVacuumedByTheFixedTrinoAndKept() throws Exception {
    DeltaTable t = TABLES.create("d_escaped", 1, null);
    LAKE.sql("INSERT INTO delta." + DeltaTrinoTables.SCHEMA
        + ".d_escaped VALUES (1000, 1, 1.25, 'x', DATE '2026-01-01', true, 'a b%c')");
    List<String> trino = TABLES.trinoRows("d_escaped");
    var escaped = LiveFiles.of(t, t.latest()).stream()
        .filter(f -> f.file().path().contains("/cat=a b"))
        .toList();
    assertThat(escaped).as("a live file in the partition folder of 'a b%%c'").isNotEmpty();
    TrinoStatements statements = new TrinoStatements(new TrinoConnection(
        LAKE.trino().jdbcUrl(), TrinoLake.DELTA_CATALOG, "resurfacer-test", null, null));
    String version = statements.value("version", "SELECT version()");
    assertThat(Integer.parseInt(version))
        .isGreaterThanOrEqualTo(TrinoDeltaVacuum.ESCAPED_PATHS_FIXED_IN);

    Step vacuumed = run(TrinoLake.DELTA_CATALOG, new Vacuum(Duration.ZERO, true), t, Mode.COMMIT);
    assertThat(vacuumed.outcome()).as(vacuumed.message()).isEqualTo(Outcome.DONE);
    for (var f : escaped) {
      assertThat(t.storage().stat(f.file())).as(f.file().toString()).isPresent();
    }
    assertThat(TABLES.trinoRows("d_escaped")).isEqualTo(trino);
    assertThat(DeltaTrinoTables.kernelRows(t)).isEqualTo(trino);
    assertThat(TrinoDeltaVacuum.escapingRefusal(
            "469",
            t.name(),
            escaped.stream()
                .map(f -> f.file().path().substring(t.storage().root().path().length() + 1))
                .toList()))
        .isPresent();
  }
}
