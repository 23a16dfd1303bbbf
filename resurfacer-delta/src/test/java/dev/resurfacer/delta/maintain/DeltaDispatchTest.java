package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.LocalEngine;
import dev.resurfacer.formats.Format;
import dev.resurfacer.maintain.Checkpoint;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaDispatchTest {
  @TempDir Path dir;

  @Test
  void aLocationHoldingADeltaLogIsADeltaTableRunByItsOwnExecutorAndFencedWithTheChosenCatalog() throws Exception {
    Path location = TestTables.copy(TestTables.sharedPartitionedWithDeletes(), dir.resolve("events"));
    List<String> before = DeltaSpark.rows(location);
    CatalogConfig chosen = CatalogConfig.of("lake", "jdbc", "jdbc:sqlite:" + dir.resolve("catalog.db"), dir.resolve("wh").toString());
    AtomicReference<CatalogConfig> fencedWith = new AtomicReference<>();
    TableLookup lookup = new TableLookup(location.toString(), ResurfacerConfig.empty(), () -> chosen, dir, c -> {
      fencedWith.set(c);
      return dev.resurfacer.storage.StorageFences.forCatalogs(List.of(c), null, dir);
    });

    Dispatcher.Outcome done = Dispatcher.onEngine(lookup, new LocalEngine(), () -> EngineSettings.none("local"), new Checkpoint(),
        Mode.COMMIT);

    assertThat(done.format()).isEqualTo(Format.DELTA);
    assertThat(done.step().outcome()).isEqualTo(Outcome.DONE);
    assertThat(fencedWith.get()).isEqualTo(chosen);
    assertThat(DeltaLogFiles.list(DeltaTables.open("events", location.toString(), dir)).latestCheckpoint(Long.MAX_VALUE)).isPresent();
    assertThat(DeltaSpark.rows(location)).isEqualTo(before);
  }
}
