package dev.resurfacer.delta.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.describe.DeltaDescriber;
import dev.resurfacer.delta.maintain.DeltaResurfacer;
import dev.resurfacer.delta.table.DeltaDiscovery;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code discover:} roots on S3 (s3proxy on loopback): copies of one delta-spark table placed under
 * prefixes of a bucket, found by the same rules as on local disk and maintained by their names.
 */
class S3DeltaDiscoveryTest {
  private static S3Bucket s3;
  private static Path source;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Bucket("bucket");
    source = TestTables.sharedPartitionedWithDeletes();
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  private static CatalogConfig catalog(
      Map<String, String> tables, List<String> discover, Map<String, String> props) {
    Map<String, String> p = new HashMap<>(s3.properties());
    p.putAll(props);
    return new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        p,
        Set.of("s3.secret-access-key"),
        tables,
        discover);
  }

  private static CatalogConfig catalog(Map<String, String> tables, List<String> discover) {
    return catalog(tables, discover, Map.of());
  }

  private static String table(String prefix) throws Exception {
    return s3.upload(source, prefix);
  }

  @Test
  void nestedTablesAreNamedByTheirPrefixesAndMaintainedByThoseNames() throws Exception {
    table("lake/raw/events");
    table("lake/raw/web/clicks");
    table("lake/top");
    table(
        "lake/raw/events/part=a/inner"); // a table inside a table's partition prefix is not a table
    table("lake/_staging/skipped");
    table("lake/.hidden/skipped");
    Files.createDirectories(s3.backend("lake/raw/empty/_delta_log"));
    Files.writeString(s3.backend("lake/raw/empty/_delta_log/notes.txt"), "no commit here");
    table(
        "lake/raw/empty/below"); // below a _delta_log without commits: not walked, as on local disk
    String explicit = table("elsewhere/events");
    assertThat(s3.keys("lake"))
        .as("s3proxy stores the hidden prefixes")
        .anyMatch(k -> k.startsWith(".hidden/"))
        .anyMatch(k -> k.startsWith("raw/events/part=a/inner/_delta_log/"));

    // explicit entries win by name (raw.events) and by place, however the place is spelled (s3a://
    // for the discovered default.top)
    CatalogConfig config = catalog(
        Map.of("raw.events", explicit, "named.top", s3.s3a("lake/top")), List.of(s3.s3a("lake")));
    Map<String, String> tables = DeltaDiscovery.tables(config, dir);
    assertThat(tables).containsOnlyKeys("raw.events", "named.top", "raw.web_clicks");
    assertThat(tables.get("raw.events")).isEqualTo(explicit);
    assertThat(tables.get("raw.web_clicks")).isEqualTo(s3.location("lake/raw/web/clicks"));
    assertThat(DeltaDiscovery.tables(catalog(Map.of(), List.of(s3.location("lake"))), dir))
        .containsOnlyKeys("raw.events", "raw.web_clicks", "default.top")
        .containsEntry("raw.events", s3.location("lake/raw/events"));

    try (var r = DeltaResurfacer.connect(config, dir)) {
      RunReport preview =
          r.run(MaintenancePlan.of(Maintain.namespace("raw").vacuum().checkpoint()), Mode.PREVIEW);
      assertThat(preview.tables())
          .extracting(TableReport::table)
          .containsExactly("raw.events", "raw.web_clicks");
      assertThat(preview.tables())
          .allSatisfy(t -> assertThat(t.outcome()).as(t.message()).isEqualTo(Outcome.PREVIEWED));
    }

    // describe and a vacuum preview by the discovered name, with the catalog's connection (two
    // delta catalogs: no fallback)
    CatalogConfig other = new CatalogConfig(
        "other",
        CatalogConfig.DELTA,
        null,
        null,
        Map.of(),
        Set.of(),
        Map.of("x.y", "/nowhere"),
        List.of());
    var whole = new ResurfacerConfig(
        Map.of("deltas", catalog(Map.of(), List.of(s3.location("lake/"))), "other", other), null);
    try (DeltaTable t = DeltaTables.find("raw.web_clicks", whole, dir).orElseThrow()) {
      assertThat(t.name()).isEqualTo("raw.web_clicks");
      assertThat(t.storage()).isInstanceOf(ObjectStorage.class);
      assertThat(t.storage().root().key()).isEqualTo("s3://bucket/lake/raw/web/clicks");
      assertThat(DeltaDescriber.describe(t, Clock.systemUTC()).version())
          .isEqualTo(t.latest().getVersion());
      VacuumPlan plan = DeltaVacuum.plan(
          t, new VacuumOptions(Optional.of(Duration.ZERO), true), Clock.systemUTC());
      assertThat(plan.deletions())
          .isNotEmpty()
          .allSatisfy(c -> assertThat(t.storage().inside(c.file())).isTrue());
    }
    assertThat(s3.keys("lake/raw/web/clicks"))
        .as("a preview deletes nothing")
        .isEqualTo(s3.keys("lake/raw/events/part=a/inner"));
    assertThat(DeltaTables.find("raw.empty_below", whole, dir)).isEmpty();
    assertThat(DeltaTables.find("default.top", whole, dir))
        .isPresent()
        .get()
        .satisfies(DeltaTable::close);
  }

  @Test
  void clashesEmptyRootsTableRootsPercentKeysAndFailedListingsAreOneLineErrorsWithoutSecrets()
      throws Exception {
    table("clash/raw/web_clicks");
    table("clash/raw/web/clicks");
    assertThatThrownBy(
            () -> DeltaDiscovery.tables(catalog(Map.of(), List.of(s3.location("clash"))), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("raw.web_clicks")
        .hasMessageContaining("clash/raw/web_clicks")
        .hasMessageContaining("clash/raw/web/clicks");
    assertThat(DeltaDiscovery.tables(
            catalog(
                Map.of("raw.web_clicks", s3.location("clash/raw/web_clicks")),
                List.of(s3.location("clash"))),
            dir))
        .as("an explicit entry settles the name")
        .containsOnlyKeys("raw.web_clicks");

    assertThatThrownBy(() -> DeltaDiscovery.tables(
            catalog(Map.of(), List.of(s3.location("clash/raw/web/clicks"))), dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is itself a Delta table; name it under tables:");
    assertThatThrownBy(() ->
            DeltaDiscovery.tables(catalog(Map.of(), List.of(s3.location("no/such/prefix"))), dir))
        .isInstanceOf(UsageException.class)
        .hasMessage("catalogs.deltas.discover: s3://bucket/no/such/prefix holds no objects");

    // a key with a percent-escape look-alike is the table at that very key, not at its decoded
    // spelling (x%41y is not xAy)
    table("pct/raw/x%41y");
    CatalogConfig pct = catalog(Map.of(), List.of(s3.location("pct")));
    String location = DeltaDiscovery.tables(pct, dir).get("raw.x%41y");
    assertThat(location).isNotNull();
    try (DeltaTable t = DeltaTables.open("raw.x%41y", location, dir, DeltaTables.settings(pct))) {
      assertThat(t.storage().root().path()).isEqualTo("/pct/raw/x%41y");
      assertThat(DeltaDescriber.describe(t, Clock.systemUTC()).version())
          .isEqualTo(t.latest().getVersion());
    }

    // the store refuses the listing (wrong secret): the table listing fails in one line, no table
    // silently left out
    String wrongSecret = "wrong-secret-never-printed";
    assertThatThrownBy(() -> DeltaDiscovery.tables(
            catalog(
                Map.of(),
                List.of(s3.location("clash")),
                Map.of("s3.secret-access-key", wrongSecret)),
            dir))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("catalogs.deltas.discover: cannot list s3://bucket/clash/")
        .satisfies(e -> assertThat(e.getMessage())
            .doesNotContain(wrongSecret)
            .doesNotContain(S3Bucket.SECRET_KEY)
            .doesNotContain("\n"));
  }
}
