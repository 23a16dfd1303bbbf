package dev.resurfacer.delta.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.table.DeltaDiscovery;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code discover:} roots of a delta catalog, on copies of one delta-spark table. */
class DeltaDiscoveryTest {
  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private static CatalogConfig catalog(Map<String, String> tables, List<String> discover) {
    return new CatalogConfig(
        "deltas", CatalogConfig.DELTA, null, null, Map.of(), Set.of(), tables, discover);
  }

  private Path table(String relative) throws IOException {
    return TestTables.copy(source, dir.resolve(relative));
  }

  @Test
  void tablesUnderARootAreNamedByTheirPathAndANamespacePlanCoversThem() throws Exception {
    table("lake/raw/events");
    table("lake/raw/web/clicks");
    table("lake/top");
    table("lake/raw/events/part=a/inner"); // a table inside a table's partition directory is not a
    // table
    table("lake/_staging/skipped");
    table("lake/.hidden/skipped");
    Files.createDirectories(dir.resolve("lake/raw/empty/_delta_log")); // no commit: not a table
    Path outside = table("outside/linked");
    Files.createSymbolicLink(dir.resolve("lake/raw/linked"), outside);
    Path explicit = table("elsewhere/events");

    CatalogConfig config = catalog(Map.of("raw.events", explicit.toString()), List.of("lake"));
    Map<String, String> tables = DeltaDiscovery.tables(config, dir);
    assertThat(tables).containsOnlyKeys("raw.events", "raw.web_clicks", "default.top");
    assertThat(tables.get("raw.events"))
        .as("the explicit entry wins")
        .isEqualTo(explicit.toString());
    assertThat(tables.get("raw.web_clicks"))
        .isEqualTo(dir.resolve("lake/raw/web/clicks").toString());

    try (var r = DeltaResurfacer.connect(config, dir)) {
      RunReport preview =
          r.run(MaintenancePlan.of(Maintain.namespace("raw").vacuum().checkpoint()), Mode.PREVIEW);
      assertThat(preview.tables())
          .extracting(TableReport::table)
          .containsExactly("raw.events", "raw.web_clicks");
      assertThat(preview.tables())
          .allSatisfy(t -> assertThat(t.outcome()).as(t.message()).isEqualTo(Outcome.PREVIEWED));
      assertThat(r.tables()).containsExactly("default.top", "raw.events", "raw.web_clicks");
    }

    var whole = new ResurfacerConfig(
        Map.of("deltas", catalog(Map.of(), List.of(dir.resolve("lake").toUri().toString()))), null);
    try (DeltaTable t = DeltaTables.find("raw.web_clicks", whole, dir).orElseThrow()) {
      assertThat(t.name()).isEqualTo("raw.web_clicks");
    }
    assertThat(DeltaTables.find("raw.linked", whole, dir)).isEmpty();
  }

  @Test
  void twoTablesMakingOneNameAreAConfigErrorNamingBoth() throws Exception {
    table("lake/raw/web_clicks");
    table("lake/raw/web/clicks");
    assertThatThrownBy(() -> DeltaDiscovery.tables(catalog(Map.of(), List.of("lake")), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("raw.web_clicks")
        .hasMessageContaining("lake/raw/web_clicks")
        .hasMessageContaining("lake/raw/web/clicks");
    assertThat(DeltaDiscovery.tables(
            catalog(Map.of("raw.web_clicks", "lake/raw/web_clicks"), List.of("lake")), dir))
        .as("an explicit entry settles the name")
        .containsOnlyKeys("raw.web_clicks");
  }

  /** A table with two names would have two policies: keep-versions set under one would not protect it under the other. */
  @Test
  void rootsThatOverlapOrCoverAnotherCatalogsTableAreRefusedBeforeAnyWalk() throws Exception {
    table("lake/raw/web/clicks");
    assertThatThrownBy(
            () -> DeltaDiscovery.tables(catalog(Map.of(), List.of("lake", "lake/raw")), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining(
            "catalogs.deltas.discover: lake and catalogs.deltas.discover: lake/raw overlap")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(
            () -> DeltaDiscovery.tables(catalog(Map.of(), List.of("lake", "./lake/")), dir))
        .as("one root spelled twice")
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("overlap");

    CatalogConfig other = new CatalogConfig(
        "others",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of(),
        List.of(dir + "/lake/raw"));
    assertThatThrownBy(() ->
            DeltaDiscovery.refuseOverlaps(List.of(catalog(Map.of(), List.of("lake")), other), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("catalogs.deltas.discover: lake and catalogs.others.discover: " + dir
            + "/lake/raw overlap");

    CatalogConfig naming = new CatalogConfig(
        "named",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of("raw.clicks", "lake/raw/web/clicks"),
        List.of());
    assertThatThrownBy(() ->
            DeltaDiscovery.refuseOverlaps(List.of(catalog(Map.of(), List.of("lake")), naming), dir))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "catalogs.named.tables.raw.clicks: lake/raw/web/clicks is under catalogs.deltas.discover: lake: the table would have two"
                + " names (and two policies); name it in deltas or narrow the root");

    // the same catalog naming a table under its own root is allowed: the explicit entry is that
    // table
    assertThat(DeltaDiscovery.tables(
            catalog(Map.of("raw.clicks", "lake/raw/web/clicks"), List.of("lake")), dir))
        .containsOnlyKeys("raw.clicks");
    CatalogConfig apart = new CatalogConfig(
        "apart",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of(),
        List.of("lakehouse"));
    DeltaDiscovery.refuseOverlaps(
        List.of(catalog(Map.of(), List.of("lake")), apart), dir); // lake vs lakehouse: no overlap
  }
}
