package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.dispatch.Dispatcher;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.engines.EngineCapability;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.engines.LocalEngine;
import dev.resurfacer.formats.Format;
import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.report.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DispatcherTest {
  @TempDir
  Path dir;

  private TableLookup lookup(String target, CatalogConfig config) {
    return new TableLookup(target, ResurfacerConfig.empty(), () -> config, dir, chosen -> null);
  }

  @Test
  void aNameNoDeltaCatalogMapsIsAnIcebergTableRunByTheFormatsOwnExecutorOnTheLocalEngine()
      throws Exception {
    CatalogConfig config =
        CatalogConfig.of("lake", "jdbc", SqliteCatalogs.uri(dir), SqliteCatalogs.warehouse(dir));
    List<String> before;
    int manifestsBefore;
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir)) {
      Table table = Fleet.smallFiles(catalog, "shop", "orders", 4);
      before = Rows.sortedStrings(table);
      manifestsBefore = table.currentSnapshot().allManifests(table.io()).size();
    }
    assertThat(manifestsBefore).isGreaterThan(1);

    Dispatcher.Outcome preview = Dispatcher.onEngine(
        lookup("shop.orders", config),
        new LocalEngine(),
        () -> EngineSettings.none("local"),
        new RewriteManifests(),
        Mode.PREVIEW);
    assertThat(preview.format()).isEqualTo(Format.ICEBERG);
    assertThat(preview.step().outcome()).isEqualTo(Outcome.PREVIEWED);

    Dispatcher.Outcome done = Dispatcher.onEngine(
        lookup("shop.orders", config),
        new LocalEngine(),
        () -> EngineSettings.none("local"),
        new RewriteManifests(),
        Mode.COMMIT);
    assertThat(done.step().outcome()).isEqualTo(Outcome.DONE);
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", dir)) {
      Table table = catalog.loadTable(TableIdentifier.of("shop", "orders"));
      assertThat(table.currentSnapshot().allManifests(table.io())).hasSizeLessThan(manifestsBefore);
      assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    }
  }

  @Test
  void whatTheEngineDeclaresRefusedIsRefusedWithItsReasonBeforeItIsOpenedOrTheTableRead() {
    CatalogConfig config =
        CatalogConfig.of("lake", "jdbc", SqliteCatalogs.uri(dir), SqliteCatalogs.warehouse(dir));
    AtomicBoolean opened = new AtomicBoolean();
    ExecutionEngineProvider refusing = new ExecutionEngineProvider() {
      @Override
      public String name() {
        return "refusing";
      }

      @Override
      public List<EngineCapability> capabilities() {
        return List.of(EngineCapability.refused(
            "refusing", "iceberg", "rewrite-manifests", "it has no such procedure"));
      }

      @Override
      public ExecutionEngine open(EngineSettings settings) {
        opened.set(true);
        throw new AssertionError("opened");
      }
    };
    // the table does not even exist: the refusal comes first
    assertThatThrownBy(() -> Dispatcher.onEngine(
            lookup("shop.missing", config),
            refusing,
            () -> EngineSettings.none("refusing"),
            new RewriteManifests(),
            Mode.COMMIT))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "engine refusing does not run rewrite-manifests on iceberg tables: it has no such procedure");
    assertThat(opened).isFalse();
  }
}
