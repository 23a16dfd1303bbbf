package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.compact.CompactionPlan;
import dev.resurfacer.delta.compact.CompactionResult;
import dev.resurfacer.delta.describe.DeltaHealth;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.LocalEngine;
import dev.resurfacer.formats.Format;
import dev.resurfacer.maintain.Checkpoint;
import dev.resurfacer.maintain.CompactionSettings;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.Readout;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaDispatchTest {
  @TempDir
  Path dir;

  @Test
  void aLocationHoldingADeltaLogIsADeltaTableRunByItsOwnExecutorAndFencedWithTheChosenCatalog()
      throws Exception {
    Path location =
        TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    List<String> before = DeltaSpark.rows(location);
    CatalogConfig chosen = CatalogConfig.of(
        "lake",
        "jdbc",
        "jdbc:sqlite:" + dir.resolve("catalog.db"),
        dir.resolve("wh").toString());
    AtomicReference<CatalogConfig> fencedWith = new AtomicReference<>();
    TableLookup lookup =
        new TableLookup(location.toString(), ResurfacerConfig.empty(), () -> chosen, dir, c -> {
          fencedWith.set(c);
          return dev.resurfacer.storage.StorageFences.forCatalogs(List.of(c), null, dir);
        });

    Dispatcher.Outcome done = Dispatcher.onEngine(
        lookup,
        new LocalEngine(),
        () -> EngineSettings.none("local"),
        new Checkpoint(),
        Mode.COMMIT);

    assertThat(done.format()).isEqualTo(Format.DELTA);
    assertThat(done.step().outcome()).isEqualTo(Outcome.DONE);
    assertThat(fencedWith.get()).isEqualTo(chosen);
    assertThat(DeltaLogFiles.list(DeltaTables.open("events", location.toString(), dir))
            .latestCheckpoint(Long.MAX_VALUE))
        .isPresent();
    assertThat(DeltaSpark.rows(location)).isEqualTo(before);
  }

  /**
   * {@code describe}, {@code plan} and {@code compact} on a Delta location go through the dispatcher's door as the
   * other verbs do: the readouts are Delta's own records, a preview changes nothing, a flag with no Delta meaning
   * is refused in one line, and the commit keeps every row.
   */
  @Test
  void describePlanAndCompactOfADeltaLocationAreDeltasOwnReadouts() throws Exception {
    Path location =
        TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    List<String> before = DeltaSpark.rows(location);
    TableLookup lookup = new TableLookup(
        location.toString(),
        ResurfacerConfig.empty(),
        () -> {
          throw new UsageException("no catalog chosen");
        },
        dir,
        c -> StorageFences.none());

    Readout health = Dispatcher.describe(lookup);
    assertThat(health).isInstanceOf(DeltaHealth.class);
    assertThat(((DeltaHealth) health).data().dataFiles()).isGreaterThan(1);
    assertThat(health.render()).contains("(delta, version ");

    assertThatThrownBy(() -> Dispatcher.planCompaction(lookup, settings(List.of("--rewrite-all"))))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--rewrite-all does not apply to Delta tables");

    Readout preview =
        Dispatcher.compact(lookup, settings(List.of()), Mode.PREVIEW, Progress.NONE, line -> {});
    CompactionPlan plan = (CompactionPlan) preview;
    assertThat(plan.bins()).isNotEmpty();
    assertThat(preview.render()).contains("preview only: nothing was changed");
    assertThat(DeltaTables.open("events", location.toString(), dir).latest().getVersion())
        .isEqualTo(plan.version());

    Readout done =
        Dispatcher.compact(lookup, settings(List.of()), Mode.COMMIT, Progress.NONE, line -> {});
    CompactionResult result = (CompactionResult) done;
    assertThat(done.succeeded()).isTrue();
    assertThat(result.committedVersions())
        .isNotEmpty()
        .allSatisfy(v -> assertThat(v).isGreaterThan(plan.version()));
    assertThat(result.addedFiles()).isLessThan(result.removedFiles());
    assertThat(DeltaSpark.rows(location)).containsExactlyInAnyOrderElementsOf(before);
  }

  private static CompactionSettings settings(List<String> given) {
    return new CompactionSettings(
        CompactionSettings.Sizes.NONE,
        new CompactionSettings.Grouping(
            null, given.contains("--rewrite-all"), null, null, null, null),
        CompactionSettings.Commits.NONE,
        Map.of(),
        CompactionSettings.Selection.ALL,
        CompactionSettings.Layout.BIN_PACK,
        CompactionSettings.Running.DEFAULTS,
        given);
  }
}
